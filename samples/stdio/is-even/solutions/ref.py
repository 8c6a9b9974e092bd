n = int(input())
print('EVEN' if n % 2 == 0 else 'ODD')
