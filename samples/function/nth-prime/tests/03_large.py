assert nth_prime(100000) == 1299709
