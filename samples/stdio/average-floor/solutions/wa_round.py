n = int(input())
print(round(sum(map(int, input().split())) / n))
