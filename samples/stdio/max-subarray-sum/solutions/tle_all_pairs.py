import sys
data = list(map(int, sys.stdin.buffer.read().split()))
a = data[1:]
best = a[0]
for i in range(len(a)):
    s = 0
    for j in range(i, len(a)):
        s += a[j]
        if s > best:
            best = s
print(best)
