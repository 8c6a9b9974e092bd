import sys
data = list(map(int, sys.stdin.buffer.read().split()))
a = data[1:]
inv = 0
for i in range(len(a)):
    for j in range(i + 1, len(a)):
        if a[i] > a[j]:
            inv += 1
print(inv)
