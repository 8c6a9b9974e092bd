def nth_prime(n: int) -> int:
    """Return the n-th prime number (1-based): nth_prime(1) == 2.

    >>> nth_prime(5)
    11
    """
