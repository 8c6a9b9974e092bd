def nth_prime(n: int) -> int:
    """Return the n-th prime number (1-based): nth_prime(1) == 2.

    >>> nth_prime(5)
    11
    """
    limit = 15 if n < 6 else int(n * (__import__('math').log(n) + __import__('math').log(__import__('math').log(n)))) + 10
    sieve = bytearray([1]) * (limit + 1)
    sieve[0:2] = b'\x00\x00'
    for i in range(2, int(limit ** 0.5) + 1):
        if sieve[i]:
            sieve[i * i::i] = bytes(len(range(i * i, limit + 1, i)))
    count = 0
    for i, is_p in enumerate(sieve):
        count += is_p
        if count == n:
            return i
