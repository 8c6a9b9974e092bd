n = int(input())
print(' '.join(str(i % n + 1) for i in range(1, n + 1)))
