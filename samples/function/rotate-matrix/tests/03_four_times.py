m = [[i * 50 + j for j in range(50)] for i in range(30)]
r = m
for _ in range(4):
    r = rotate(r)
assert r == m
