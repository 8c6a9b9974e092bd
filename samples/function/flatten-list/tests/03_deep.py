x = [0]
for i in range(1, 5000):
    x = [x, i]
assert flatten(x) == list(range(5000))
