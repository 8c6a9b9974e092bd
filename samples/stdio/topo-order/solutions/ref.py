import sys
from collections import deque
data = list(map(int, sys.stdin.buffer.read().split()))
n, m = data[0], data[1]
adj = [[] for _ in range(n + 1)]
indeg = [0] * (n + 1)
for i in range(m):
    a, b = data[2 + 2 * i], data[3 + 2 * i]
    adj[a].append(b)
    indeg[b] += 1
q = deque(v for v in range(1, n + 1) if indeg[v] == 0)
order = []
while q:
    v = q.popleft()
    order.append(v)
    for u in adj[v]:
        indeg[u] -= 1
        if indeg[u] == 0:
            q.append(u)
print(' '.join(map(str, order)) if len(order) == n else 'IMPOSSIBLE')
