import sys
lines = sys.stdin.read().split()
out = []
for s in lines[1:]:
    opened = sum(c in '([{' for c in s)
    out.append('YES' if 2 * opened == len(s) else 'NO')
print('\n'.join(out))
