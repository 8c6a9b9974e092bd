n = int(input())
a = list(map(int, input().split()))
i = 0
best = a[0]
while i < n:
    best = max(best, a[i])
    # forgot i += 1
print(best)
