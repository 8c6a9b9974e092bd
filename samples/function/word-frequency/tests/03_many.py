def check(candidate):
    r = candidate('Go go GO stop ' * 1000)
    assert r == {'go': 3000, 'stop': 1000}
