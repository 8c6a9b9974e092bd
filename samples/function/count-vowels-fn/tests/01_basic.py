def check(candidate):
    assert candidate('Hello World') == 3
    assert candidate('xyz') == 0
