import sys
data = sys.stdin.buffer.read().split()
n, t = int(data[0]), int(data[1])
seen = {}
for i in range(n):
    x = int(data[2 + i])
    if t - x in seen:
        print(seen[t - x] + 1, i + 1)
        break
    seen[x] = i
else:
    print(-1)
