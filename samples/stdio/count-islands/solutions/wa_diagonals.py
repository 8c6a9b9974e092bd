import sys
data = sys.stdin.read().split()
h, w = int(data[0]), int(data[1])
g = [list(r) for r in data[2:2 + h]]
count = 0
for si in range(h):
    for sj in range(w):
        if g[si][sj] != '#':
            continue
        count += 1
        g[si][sj] = '.'
        st = [(si, sj)]
        while st:
            i, j = st.pop()
            for a in (i - 1, i, i + 1):
                for b in (j - 1, j, j + 1):
                    if 0 <= a < h and 0 <= b < w and g[a][b] == '#':
                        g[a][b] = '.'
                        st.append((a, b))
print(count)
