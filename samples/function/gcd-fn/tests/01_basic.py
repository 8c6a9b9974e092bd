def check(candidate):
    assert candidate(12, 18) == 6
    assert candidate(7, 13) == 1
