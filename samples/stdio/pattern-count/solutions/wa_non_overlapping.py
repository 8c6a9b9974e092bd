s = input().strip()
p = input().strip()
print(s.count(p))
