assert nth_prime(1) == 2
assert nth_prime(5) == 11
