def check(candidate):
    assert candidate(2**60 * 3, 2**40 * 9) == 2**40 * 3
    assert candidate(10**18, 10**18 - 1) == 1
