assert running_sum([]) == []
assert running_sum([-1, 1, -1]) == [-1, 0, -1]
