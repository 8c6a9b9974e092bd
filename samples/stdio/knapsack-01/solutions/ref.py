import sys
data = sys.stdin.buffer.read().split()
n, W = int(data[0]), int(data[1])
best = [0] * (W + 1)
for i in range(n):
    w, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
    if w > W:
        continue
    # new[c] = max(best[c], best[c - w] + v), computed for all c at once
    shifted = [b + v for b in best[:W + 1 - w]]
    best = best[:w] + [x if x > y else y for x, y in zip(best[w:], shifted)]
print(best[W])
