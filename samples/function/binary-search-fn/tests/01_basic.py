assert search([1, 3, 5, 7], 5) == 2
assert search([1, 3, 5, 7], 4) == -1
