def merge_sorted(a: list[int], b: list[int]) -> list[int]:
    """Merge two lists sorted in non-decreasing order into one sorted list.

    >>> merge_sorted([1, 4, 9], [2, 3, 10])
    [1, 2, 3, 4, 9, 10]
    """
