print(len(input().split()[0]))
