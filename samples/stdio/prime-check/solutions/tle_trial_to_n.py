n = int(input())
ok = n >= 2
for d in range(2, n):
    if n % d == 0:
        ok = False
print('YES' if ok else 'NO')
