def check(candidate):
    assert candidate('abcde' * 10000) == 20000
