import sys
from collections import deque
data = sys.stdin.read().split()
h, w = int(data[0]), int(data[1])
flat = ''.join(data[2:2 + h])
s, t = flat.index('S'), flat.index('T')
prev = [-1] * (h * w)
move = [''] * (h * w)
prev[s] = s
dq = deque([s])
while dq and prev[t] < 0:
    v = dq.popleft()
    i, j = divmod(v, w)
    for ch, ni, nj in (('U', i - 1, j), ('D', i + 1, j), ('L', i, j - 1), ('R', i, j + 1)):
        if 0 <= ni < h and 0 <= nj < w:
            u = ni * w + nj
            if prev[u] < 0 and flat[u] != '#':
                prev[u] = v
                move[u] = ch
                dq.append(u)
if prev[t] < 0:
    print(-1)
else:
    path = []
    v = t
    while v != s:
        path.append(move[v])
        v = prev[v]
    print(len(path))
    print(''.join(reversed(path)))
