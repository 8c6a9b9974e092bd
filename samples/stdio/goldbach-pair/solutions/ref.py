def is_prime(x):
    if x < 2:
        return False
    d = 2
    while d * d <= x:
        if x % d == 0:
            return False
        d += 1
    return True

n = int(input())
p = 2
while not (is_prime(p) and is_prime(n - p)):
    p += 1
print(p, n - p)
