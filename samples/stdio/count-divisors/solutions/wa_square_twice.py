n = int(input())
c = 0
d = 1
while d * d <= n:
    if n % d == 0:
        c += 2
    d += 1
print(c)
