import sys
data = list(map(int, sys.stdin.buffer.read().split()))
n, t = data[0], data[1]
seen = {}
for i, x in enumerate(data[2:2 + n], 1):
    if t - x in seen:
        print(f'{seen[t - x]},{i}')
        break
    seen[x] = i
else:
    print(-1)
