import sys
data = list(map(int, sys.stdin.buffer.read().split()))
best = cur = 0
for x in data[1:]:
    cur = max(0, cur + x)
    best = max(best, cur)
print(best)
