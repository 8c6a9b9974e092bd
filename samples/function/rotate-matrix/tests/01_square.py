assert rotate([[1, 2], [3, 4]]) == [[3, 1], [4, 2]]
assert rotate([[5]]) == [[5]]
