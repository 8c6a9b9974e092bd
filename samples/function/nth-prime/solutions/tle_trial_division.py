def nth_prime(n):
    found, k = 0, 1
    while found < n:
        k += 1
        if all(k % d for d in range(2, k)):
            found += 1
    return k
