input()
a = sorted(map(int, input().split()))
print(a[-2])
