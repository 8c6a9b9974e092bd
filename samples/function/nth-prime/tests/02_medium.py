assert nth_prime(100) == 541
assert nth_prime(1000) == 7919
