def check(candidate):
    assert candidate(0, 5) == 5
    assert candidate(5, 0) == 5
