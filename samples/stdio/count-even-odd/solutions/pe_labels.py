input()
a = list(map(int, input().split()))
ev = sum(1 for x in a if x % 2 == 0)
print(f'even={ev} odd={len(a) - ev}')
