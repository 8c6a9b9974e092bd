assert running_sum([1, 2, 3, 4]) == [1, 3, 6, 10]
assert running_sum([5]) == [5]
