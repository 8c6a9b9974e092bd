import sys
data = list(map(int, sys.stdin.read().split()))
k, A = data[0], data[1]
coins = data[2:2 + k]
ways = [1] + [0] * A
for s in range(1, A + 1):
    for c in coins:
        if c <= s:
            ways[s] = (ways[s] + ways[s - c]) % 1000000007
print(ways[A])
