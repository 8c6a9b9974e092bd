assert add(-4, 1) == -3
assert add(-2, -2) == -4
