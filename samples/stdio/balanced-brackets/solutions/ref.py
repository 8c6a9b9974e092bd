import sys
lines = sys.stdin.read().split()
pairs = {')': '(', ']': '[', '}': '{'}
out = []
for s in lines[1:1 + int(lines[0])]:
    st = []
    ok = True
    for c in s:
        if c in '([{':
            st.append(c)
        elif st and st[-1] == pairs[c]:
            st.pop()
        else:
            ok = False
            break
    out.append('YES' if ok and not st else 'NO')
print('\n'.join(out))
