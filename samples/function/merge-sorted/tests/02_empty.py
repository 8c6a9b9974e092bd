def check(candidate):
    assert candidate([], [1]) == [1]
    assert candidate([2], []) == [2]
    assert candidate([], []) == []
