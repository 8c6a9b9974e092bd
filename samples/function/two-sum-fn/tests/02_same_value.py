assert two_sum([3, 3], 6) == (0, 1)
assert two_sum([-1, -2, -3, -4, -5], -8) == (2, 4)
