import sys
data = sys.stdin.buffer.read().split()
n, S = int(data[0]), int(data[1])
a = list(map(int, data[2:2 + n]))
best = lo = cur = 0
for hi in range(n):
    cur += a[hi]
    while cur > S:
        cur -= a[lo]
        lo += 1
    best = max(best, hi - lo + 1)
print(best)
