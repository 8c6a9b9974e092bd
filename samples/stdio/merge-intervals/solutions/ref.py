import sys
data = list(map(int, sys.stdin.buffer.read().split()))
n = data[0]
segs = sorted(zip(data[1:2 * n + 1:2], data[2:2 * n + 2:2]))
total = 0
cur_l, cur_r = segs[0]
for l, r in segs[1:]:
    if l > cur_r:
        total += cur_r - cur_l
        cur_l, cur_r = l, r
    elif r > cur_r:
        cur_r = r
total += cur_r - cur_l
print(total)
