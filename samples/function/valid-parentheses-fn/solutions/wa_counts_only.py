def is_valid(s):
    return sum(c in '([{' for c in s) * 2 == len(s)
