print(input().strip().capitalize())
