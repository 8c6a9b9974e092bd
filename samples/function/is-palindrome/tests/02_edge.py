def check(candidate):
    assert candidate('') is True
    assert candidate('a') is True
    assert candidate('abca') is False
