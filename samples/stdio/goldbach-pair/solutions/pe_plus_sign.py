def is_prime(x):
    return x >= 2 and all(x % d for d in range(2, int(x ** 0.5) + 1))

n = int(input())
p = 2
while not (is_prime(p) and is_prime(n - p)):
    p += 1
print(f'{p}+{n - p}')
