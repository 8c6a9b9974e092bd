def roman_to_int(s: str) -> int:
    """Convert a Roman numeral (1..3999, standard subtractive form) to an integer.

    >>> roman_to_int("XIV")
    14
    """
