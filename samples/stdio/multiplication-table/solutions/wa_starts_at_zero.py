n = int(input())
for i in range(10):
    print(f'{n} x {i} = {n * i}')
