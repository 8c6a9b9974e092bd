import sys
from collections import deque
data = sys.stdin.read().split()
h, w = int(data[0]), int(data[1])
g = data[2:2 + h]
for i in range(h):
    for j in range(w):
        if g[i][j] == 'S':
            s = i * w + j
        elif g[i][j] == 'T':
            t = i * w + j
flat = ''.join(g)
dist = [-1] * (h * w)
dist[s] = 0
dq = deque([s])
while dq:
    v = dq.popleft()
    if v == t:
        break
    i, j = divmod(v, w)
    for ni, nj in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)):
        if 0 <= ni < h and 0 <= nj < w:
            u = ni * w + nj
            if dist[u] < 0 and flat[u] != '#':
                dist[u] = dist[v] + 1
                dq.append(u)
print(dist[t])
