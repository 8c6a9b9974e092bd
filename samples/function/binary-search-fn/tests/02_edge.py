assert search([], 1) == -1
assert search([7], 7) == 0
assert search([1, 2], 2) == 1
