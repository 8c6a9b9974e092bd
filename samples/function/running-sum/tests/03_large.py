assert running_sum([1] * 100000)[-1] == 100000
assert running_sum(list(range(100000)))[-1] == 4999950000
