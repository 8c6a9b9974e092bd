def merge_sorted(a: list[int], b: list[int]) -> list[int]:
    """Merge two lists sorted in non-decreasing order into one sorted list.

    >>> merge_sorted([1, 4, 9], [2, 3, 10])
    [1, 2, 3, 4, 9, 10]
    """
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        if a[i] <= b[j]:
            out.append(a[i])
            i += 1
        else:
            out.append(b[j])
            j += 1
    return out + a[i:] + b[j:]
