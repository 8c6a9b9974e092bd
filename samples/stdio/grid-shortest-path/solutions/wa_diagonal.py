from collections import deque
import sys
data = sys.stdin.read().split()
h, w = int(data[0]), int(data[1])
g = data[2:2 + h]
flat = ''.join(g)
s, t = flat.index('S'), flat.index('T')
dist = [-1] * (h * w)
dist[s] = 0
dq = deque([s])
while dq:
    v = dq.popleft()
    i, j = divmod(v, w)
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            ni, nj = i + di, j + dj
            if 0 <= ni < h and 0 <= nj < w:
                u = ni * w + nj
                if dist[u] < 0 and flat[u] != '#':
                    dist[u] = dist[v] + 1
                    dq.append(u)
print(dist[t])
