import sys
data = list(map(int, sys.stdin.read().split()))
n, T = data[0], data[1]
a = data[2:2 + n]
mask = (1 << (T + 1)) - 1
reach = [1]  # reach[i]: bitset of sums reachable with the first i banknotes
for x in a:
    reach.append((reach[-1] | (reach[-1] << x)) & mask)
if not (reach[n] >> T) & 1:
    print(-1)
else:
    chosen = []
    s = T
    for i in range(n, 0, -1):
        if not (reach[i - 1] >> s) & 1:
            chosen.append(i)
            s -= a[i - 1]
    print(len(chosen), *sorted(chosen))
