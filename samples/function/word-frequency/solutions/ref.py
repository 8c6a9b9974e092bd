def word_frequency(text: str) -> dict[str, int]:
    """Count how often each word occurs in text. Words are separated by whitespace
    and compared case-insensitively; keys are lower case.

    >>> word_frequency("a b A")
    {'a': 2, 'b': 1}
    """
    counts = {}
    for w in text.lower().split():
        counts[w] = counts.get(w, 0) + 1
    return counts
