def is_palindrome(text: str) -> bool:
    """Return True if text reads the same forwards and backwards.

    >>> is_palindrome("level")
    True
    >>> is_palindrome("ab")
    False
    >>> is_palindrome("")
    True
    """
    return text == text[::-1]
