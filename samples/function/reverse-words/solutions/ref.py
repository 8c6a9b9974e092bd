def reverse_words(sentence: str) -> str:
    """Return the words of sentence in reverse order, joined by single spaces.
    Words are separated by one or more spaces; leading/trailing spaces are dropped.

    >>> reverse_words("the sky is blue")
    'blue is sky the'
    """
    return ' '.join(reversed(sentence.split()))
