def two_sum(nums: list[int], target: int) -> tuple[int, int]:
    """Return (i, j) with i < j and nums[i] + nums[j] == target.
    Exactly one such pair exists.

    >>> two_sum([2, 7, 11, 15], 9)
    (0, 1)
    """
    seen = {}
    for j, x in enumerate(nums):
        if target - x in seen:
            return (seen[target - x], j)
        seen[x] = j
