def gcd(a, b):
    return min(a, b)
