import sys
data = sys.stdin.read().split()
n = int(data[0])
print(' '.join(str(1 + i % 2) for i in range(1, n + 1)))
