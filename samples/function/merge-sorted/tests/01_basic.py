def check(candidate):
    assert candidate([1, 4, 9], [2, 3, 10]) == [1, 2, 3, 4, 9, 10]
