def check(candidate):
    assert candidate('  x\ty\nX  ') == {'x': 2, 'y': 1}
