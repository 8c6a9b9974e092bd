import sys
data = list(map(int, sys.stdin.read().split()))
n, T = data[0], data[1]
a = data[2:2 + n]
chosen = []
s = 0
for i in sorted(range(n), key=lambda i: -a[i]):
    if s + a[i] <= T:
        s += a[i]
        chosen.append(i + 1)
print(len(chosen), *chosen) if s == T else print(-1)
