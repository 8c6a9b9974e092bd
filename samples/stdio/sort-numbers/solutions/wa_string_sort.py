input()
print(*sorted(input().split()))
