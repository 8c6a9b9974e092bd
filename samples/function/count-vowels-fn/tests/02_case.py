def check(candidate):
    assert candidate('AEIOU') == 5
    assert candidate('') == 0
