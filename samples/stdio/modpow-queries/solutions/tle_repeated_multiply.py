import sys
data = list(map(int, sys.stdin.buffer.read().split()))
q = data[0]
out = []
for i in range(q):
    a, b, m = data[1 + 3 * i: 4 + 3 * i]
    r = 1 % m
    for _ in range(b):
        r = r * a % m
    out.append(r)
print('\n'.join(map(str, out)))
