import sys
data = list(map(int, sys.stdin.buffer.read().split()))
n, k = data[0], data[1]
a = data[2:2 + n]
out = []
for i in range(n - k + 1):
    m = a[i]
    for j in range(i, i + k):
        if a[j] > m:
            m = a[j]
    out.append(m)
print(' '.join(map(str, out)))
