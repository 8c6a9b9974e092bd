import sys
data = sys.stdin.buffer.read().split()
n = int(data[0])
a = list(map(int, data[1:1 + n]))
best = [1] * n
for i in range(n):
    for j in range(i):
        if a[j] < a[i] and best[j] + 1 > best[i]:
            best[i] = best[j] + 1
print(max(best))
