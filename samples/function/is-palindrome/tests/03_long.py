def check(candidate):
    s = 'ab' * 5000
    assert candidate(s + s[::-1]) is True
    assert candidate(s + 'x' + s) is False
