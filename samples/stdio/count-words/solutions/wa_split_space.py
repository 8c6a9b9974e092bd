print(len(input().split(' ')))
