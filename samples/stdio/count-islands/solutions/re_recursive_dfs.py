import sys
sys.setrecursionlimit(10**4)
data = sys.stdin.read().split()
h, w = int(data[0]), int(data[1])
g = [list(r) for r in data[2:2 + h]]
def fill(i, j):
    if i < 0 or j < 0 or i >= h or j >= w or g[i][j] != '#':
        return
    g[i][j] = '.'
    fill(i + 1, j)
    fill(i - 1, j)
    fill(i, j + 1)
    fill(i, j - 1)
count = 0
for i in range(h):
    for j in range(w):
        if g[i][j] == '#':
            count += 1
            fill(i, j)
print(count)
