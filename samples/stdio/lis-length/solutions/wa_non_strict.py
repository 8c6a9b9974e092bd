import sys
from bisect import bisect_right
data = sys.stdin.buffer.read().split()
tails = []
for x in map(int, data[1:]):
    k = bisect_right(tails, x)
    if k == len(tails):
        tails.append(x)
    else:
        tails[k] = x
print(len(tails))
