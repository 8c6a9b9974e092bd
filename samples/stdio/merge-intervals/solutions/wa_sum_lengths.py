import sys
data = list(map(int, sys.stdin.buffer.read().split()))
n = data[0]
print(sum(data[2 + 2 * i] - data[1 + 2 * i] for i in range(n)))
