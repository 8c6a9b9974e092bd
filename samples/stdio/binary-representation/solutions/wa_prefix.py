print(bin(int(input())))
