a = input().strip()
b = input().strip()
print(sum(x != y for x, y in zip(a, b)) + abs(len(a) - len(b)))
