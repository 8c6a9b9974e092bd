s = input().strip()
p = input().strip()
count = 0
for i in range(len(s) - len(p) + 1):
    ok = True
    for j in range(len(p)):
        if s[i + j] != p[j]:
            ok = False
            break
    if ok:
        count += 1
print(count)
