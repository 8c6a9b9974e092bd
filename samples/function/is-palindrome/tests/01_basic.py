def check(candidate):
    assert candidate('level') is True
    assert candidate('ab') is False
