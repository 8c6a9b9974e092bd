def add(a, b):
    return str(a) + b
