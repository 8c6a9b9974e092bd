def search(nums: list[int], target: int) -> int:
    """nums is sorted in increasing order with distinct values. Return the index of
    target in nums, or -1 if it is absent.

    >>> search([1, 3, 5, 7], 5)
    2
    """
