n = int(input())
print([i % n + 1 for i in range(1, n + 1)])
