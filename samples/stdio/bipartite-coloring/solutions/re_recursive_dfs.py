import sys
sys.setrecursionlimit(10**4)
data = list(map(int, sys.stdin.buffer.read().split()))
n, m = data[0], data[1]
adj = [[] for _ in range(n + 1)]
for i in range(m):
    u, v = data[2 + 2 * i], data[3 + 2 * i]
    adj[u].append(v)
    adj[v].append(u)
team = [0] * (n + 1)
def paint(v, c):
    team[v] = c
    for u in adj[v]:
        if team[u] == 0:
            if not paint(u, 3 - c):
                return False
        elif team[u] == c:
            return False
    return True
ok = all(team[s] or paint(s, 1) for s in range(1, n + 1))
print(' '.join(map(str, team[1:])) if ok else -1)
