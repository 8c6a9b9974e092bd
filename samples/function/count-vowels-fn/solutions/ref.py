def count_vowels(s: str) -> int:
    """Count the vowels a, e, i, o, u in s, in either case. 'y' is not a vowel.

    >>> count_vowels("Hello World")
    3
    """
    return sum(1 for c in s.lower() if c in 'aeiou')
