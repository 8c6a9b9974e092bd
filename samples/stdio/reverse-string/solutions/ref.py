print(input().strip()[::-1])
