print(input().strip().upper())
