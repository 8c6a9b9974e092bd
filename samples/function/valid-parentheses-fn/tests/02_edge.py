def check(candidate):
    assert candidate('') is True
    assert candidate(')') is False
    assert candidate('((') is False
