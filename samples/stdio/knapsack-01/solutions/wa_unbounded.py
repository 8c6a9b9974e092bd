import sys
data = list(map(int, sys.stdin.buffer.read().split()))
n, W = data[0], data[1]
best = [0] * (W + 1)
for i in range(n):
    w, v = data[2 + 2 * i], data[3 + 2 * i]
    for c in range(w, W + 1):
        best[c] = max(best[c], best[c - w] + v)
print(best[W])
