s = input().strip()
c = input().strip()
print(s.count(c))
