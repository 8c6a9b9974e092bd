import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
best = cur = int(data[1])
for x in map(int, data[2:1 + n]):
    cur = x if cur < 0 else cur + x
    if cur > best:
        best = cur
print(best)
