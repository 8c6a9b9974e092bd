import sys
data = list(map(int, sys.stdin.buffer.read().split()))
n, W = data[0], data[1]
# One row per (item, capacity, value bucket): far more than the memory limit.
table = []
for i in range(10**5):
    table.append([i] * 10**6)
print(table[n][W])
