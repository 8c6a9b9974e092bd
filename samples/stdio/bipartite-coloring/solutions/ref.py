import sys
from collections import deque
data = list(map(int, sys.stdin.buffer.read().split()))
n, m = data[0], data[1]
adj = [[] for _ in range(n + 1)]
for i in range(m):
    u, v = data[2 + 2 * i], data[3 + 2 * i]
    adj[u].append(v)
    adj[v].append(u)
team = [0] * (n + 1)
ok = True
for s in range(1, n + 1):
    if team[s] or not ok:
        continue
    team[s] = 1
    dq = deque([s])
    while dq and ok:
        v = dq.popleft()
        for u in adj[v]:
            if team[u] == 0:
                team[u] = 3 - team[v]
                dq.append(u)
            elif team[u] == team[v]:
                ok = False
                break
print(' '.join(map(str, team[1:])) if ok else -1)
