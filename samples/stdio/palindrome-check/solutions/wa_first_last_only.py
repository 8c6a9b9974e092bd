s = input().strip()
print('YES' if s[0] == s[-1] else 'NO')
