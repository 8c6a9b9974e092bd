n = int(input())
print(*range(n, 0, -1))
