import sys
lines = sys.stdin.read().split()
pairs = {')': '(', ']': '[', '}': '{'}
out = []
for s in lines[1:]:
    st = []
    ok = True
    for c in s:
        if c in '([{':
            st.append(c)
        elif st.pop() != pairs[c]:
            ok = False
    out.append('YES' if ok and not st else 'NO')
print('\n'.join(out))
