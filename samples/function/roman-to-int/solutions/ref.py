def roman_to_int(s: str) -> int:
    """Convert a Roman numeral (1..3999, standard subtractive form) to an integer.

    >>> roman_to_int("XIV")
    14
    """
    val = {'I': 1, 'V': 5, 'X': 10, 'L': 50, 'C': 100, 'D': 500, 'M': 1000}
    total = 0
    for a, b in zip(s, s[1:] + ' '):
        v = val[a]
        total += -v if b != ' ' and val[b] > v else v
    return total
