n = int(input())
count = 0
for m in range(2, n + 1):
    if all(m % d for d in range(2, m)):
        count += 1
print(count)
