n = int(input())
r = n
for i in range(2, n):
    r *= i
print(r)
