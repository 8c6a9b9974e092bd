import math
n = int(input())
print(math.gamma(n + 1))
