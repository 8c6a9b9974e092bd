a, b = map(int, input().split())
# Tries every candidate downwards from min(a, b): about 10^11 steps on the big tests.
d = min(a, b)
while a % d or b % d:
    d -= 1
print(d)
