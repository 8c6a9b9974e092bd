def rotate(matrix: list[list[int]]) -> list[list[int]]:
    """Return the matrix rotated 90 degrees clockwise (a new list; rows may differ in
    count from columns).

    >>> rotate([[1, 2], [3, 4]])
    [[3, 1], [4, 2]]
    """
    return [list(row) for row in zip(*matrix[::-1])]
