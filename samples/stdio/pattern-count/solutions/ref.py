import sys
s, p = sys.stdin.read().split()
count = 0
i = s.find(p)
while i != -1:
    count += 1
    i = s.find(p, i + 1)
print(count)
