s = input().strip()
print(s)
