import sys
from collections import deque
data = list(map(int, sys.stdin.buffer.read().split()))
n, m = data[0], data[1]
adj = [[] for _ in range(n + 1)]
for i in range(m):
    adj[data[2 + 3 * i]].append((data[3 + 3 * i], data[4 + 3 * i]))
dist = [-1] * (n + 1)
dist[1] = 0
dq = deque([1])
while dq:
    u = dq.popleft()
    for v, w in adj[u]:
        if dist[v] < 0:
            dist[v] = dist[u] + w
            dq.append(v)
print(' '.join(map(str, dist[1:])))
