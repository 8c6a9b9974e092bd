import sys
data = list(map(int, sys.stdin.buffer.read().split()))
n, k = data[0], data[1]
a = data[2:2 + n]
print(' '.join(str(max(a[i:i + k])) for i in range(max(1, n - k))))
