def check(candidate):
    assert candidate('a b A') == {'a': 2, 'b': 1}
    assert candidate('') == {}
