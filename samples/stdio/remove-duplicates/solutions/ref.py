input()
seen = set()
out = []
for x in input().split():
    if x not in seen:
        seen.add(x)
        out.append(x)
print(*out)
