import sys
data = sys.stdin.buffer.read().split()
n, q = int(data[0]), int(data[1])
pre = [0] * (n + 1)
s = 0
for i in range(n):
    s += int(data[2 + i])
    pre[i + 1] = s
out = []
pos = 2 + n
for _ in range(q):
    l, r = int(data[pos]), int(data[pos + 1])
    pos += 2
    out.append(pre[r] - pre[l - 1])
sys.stdout.write("\n".join(map(str, out)) + "\n")
