import sys
data = list(map(int, sys.stdin.buffer.read().split()))
n, m = data[0], data[1]
adj = [[] for _ in range(n + 1)]
indeg = [0] * (n + 1)
for i in range(m):
    a, b = data[2 + 2 * i], data[3 + 2 * i]
    adj[a].append(b)
    indeg[b] += 1
done = [False] * (n + 1)
order = []
while len(order) < n:
    # scans all tasks from the start each round: O(n^2)
    for v in range(1, n + 1):
        if not done[v] and indeg[v] == 0:
            break
    else:
        break
    done[v] = True
    order.append(v)
    for u in adj[v]:
        indeg[u] -= 1
print(' '.join(map(str, order)) if len(order) == n else 'IMPOSSIBLE')
