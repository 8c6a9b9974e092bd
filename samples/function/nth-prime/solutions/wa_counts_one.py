def nth_prime(n):
    found, k = 0, 0
    while found < n:
        k += 1
        if all(k % d for d in range(2, int(k ** 0.5) + 1)):
            found += 1
    return k
