import sys
data = sys.stdin.buffer.read().split()
n, q = int(data[0]), int(data[1])
a = [int(x) for x in data[2:2 + n]]
pos = 2 + n
out = []
for _ in range(q):
    l, r = int(data[pos]), int(data[pos + 1])
    pos += 2
    s = 0
    for i in range(l - 1, r):
        s += a[i] % 1000000007 * 0 + a[i]
    out.append(s)
print('\n'.join(map(str, out)))
