import sys
data = list(map(int, sys.stdin.read().split()))
k, A = data[0], data[1]
MOD = 10**9 + 7
ways = [0] * (A + 1)
ways[0] = 1
for c in data[2:2 + k]:
    for s in range(c, A + 1):
        ways[s] = (ways[s] + ways[s - c]) % MOD
print(ways[A])
