import sys
data = sys.stdin.read().split()
h, w = int(data[0]), int(data[1])
land = [c == '#' for c in ''.join(data[2:2 + h])]
seen = [False] * (h * w)
count = 0
for start in range(h * w):
    if land[start] and not seen[start]:
        count += 1
        seen[start] = True
        stack = [start]
        while stack:
            v = stack.pop()
            i, j = divmod(v, w)
            for u, ok in ((v - w, i > 0), (v + w, i < h - 1), (v - 1, j > 0), (v + 1, j < w - 1)):
                if ok and land[u] and not seen[u]:
                    seen[u] = True
                    stack.append(u)
print(count)
