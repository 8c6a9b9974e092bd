y = int(input())
print('YES' if y % 4 == 0 else 'NO')
