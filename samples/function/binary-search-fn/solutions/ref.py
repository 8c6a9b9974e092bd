def search(nums: list[int], target: int) -> int:
    """nums is sorted in increasing order with distinct values. Return the index of
    target in nums, or -1 if it is absent.

    >>> search([1, 3, 5, 7], 5)
    2
    """
    lo, hi = 0, len(nums) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if nums[mid] == target:
            return mid
        if nums[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1
