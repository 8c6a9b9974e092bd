def digits(n):
    return n % 10 + digits(n // 10)

print(digits(int(input())))
