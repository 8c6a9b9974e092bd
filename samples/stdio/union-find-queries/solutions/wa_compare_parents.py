import sys
data = sys.stdin.buffer.read().split()
n, q = int(data[0]), int(data[1])
parent = list(range(n + 1))
def find(x):
    while parent[x] != x:
        x = parent[x]
    return x
out = []
pos = 2
for _ in range(q):
    op, a, b = data[pos], int(data[pos + 1]), int(data[pos + 2])
    pos += 3
    if op == b'union':
        parent[find(a)] = find(b)
    else:
        # compares direct parents instead of roots
        out.append('YES' if parent[a] == parent[b] else 'NO')
print('\n'.join(out))
