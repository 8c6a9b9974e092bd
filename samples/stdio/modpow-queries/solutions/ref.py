import sys
data = sys.stdin.buffer.read().split()
q = int(data[0])
out = [str(pow(int(data[1 + 3 * i]), int(data[2 + 3 * i]), int(data[3 + 3 * i]))) for i in range(q)]
print('\n'.join(out))
