s = input().strip()
c = input().strip()
print(s.lower().count(c.lower()))
