import sys
data = sys.stdin.buffer.read().split()
n, q = int(data[0]), int(data[1])
parent = list(range(n + 1))
def find(x):
    if parent[x] != x:
        parent[x] = find(parent[x])
    return parent[x]
out = []
pos = 2
for _ in range(q):
    op, a, b = data[pos], int(data[pos + 1]), int(data[pos + 2])
    pos += 3
    ra, rb = find(a), find(b)
    if op == b'union':
        parent[ra] = rb
    else:
        out.append('YES' if ra == rb else 'NO')
print('\n'.join(out))
