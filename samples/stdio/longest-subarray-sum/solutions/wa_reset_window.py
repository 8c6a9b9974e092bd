import sys
data = sys.stdin.buffer.read().split()
n, S = int(data[0]), int(data[1])
a = list(map(int, data[2:2 + n]))
best = run = cur = 0
for x in a:
    if cur + x > S:
        cur = 0
        run = 0
    if x <= S:
        cur += x
        run += 1
    best = max(best, run)
print(best)
