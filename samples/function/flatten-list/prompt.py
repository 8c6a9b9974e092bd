def flatten(items: list) -> list:
    """Flatten arbitrarily nested lists into one list, keeping the order.

    >>> flatten([1, [2, [3, 4]], 5])
    [1, 2, 3, 4, 5]
    """
