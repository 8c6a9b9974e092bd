import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
a = list(map(int, data[1:1 + n]))
rank = {v: i + 1 for i, v in enumerate(sorted(set(a)))}
m = len(rank)
tree = [0] * (m + 1)
inv = 0
for seen, x in enumerate(a):
    r = rank[x]
    # count earlier elements <= x
    i, le = r, 0
    while i > 0:
        le += tree[i]
        i -= i & -i
    inv += seen - le
    i = r
    while i <= m:
        tree[i] += 1
        i += i & -i
print(inv)
