input()
print(*sorted(map(int, input().split())))
