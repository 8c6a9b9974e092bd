n = int(input().split()[1])
print(format(n, 'b'))
