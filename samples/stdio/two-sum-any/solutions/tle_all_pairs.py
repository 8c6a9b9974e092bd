import sys
data = list(map(int, sys.stdin.buffer.read().split()))
n, t = data[0], data[1]
a = data[2:2 + n]
ans = '-1'
for i in range(n):
    for j in range(i + 1, n):
        if a[i] + a[j] == t:
            ans = f'{i + 1} {j + 1}'
print(ans)
