assert flatten([[], [[]], [1, []]]) == [1]
assert flatten([['a'], 'b']) == ['a', 'b']
