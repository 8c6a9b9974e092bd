def check(candidate):
    assert candidate([1, 1, 2], [1, 2, 2]) == [1, 1, 1, 2, 2, 2]
    a, b = list(range(0, 200000, 2)), list(range(1, 200000, 2))
    assert candidate(a, b) == list(range(200000))
