words = input().split()
print(words[len(words)])
