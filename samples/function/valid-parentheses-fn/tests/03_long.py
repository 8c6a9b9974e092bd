def check(candidate):
    assert candidate('([{' * 20000 + '}])' * 20000) is True
    assert candidate('(' * 40001 + ')' * 40000) is False
