input()
print(*sorted(set(map(int, input().split()))))
