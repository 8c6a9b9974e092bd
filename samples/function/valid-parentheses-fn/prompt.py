def is_valid(s: str) -> bool:
    """Return True if the brackets ()[]{} in s are balanced and properly nested.
    s contains only bracket characters.

    >>> is_valid("([]{})")
    True
    >>> is_valid("([)]")
    False
    """
