n = int(input())
a = list(map(int, input().split()))
best = 0
for x in a:
    if x > best:
        best = x
print(best)
