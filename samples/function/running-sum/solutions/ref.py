def running_sum(nums: list[int]) -> list[int]:
    """Return the list whose i-th element is nums[0] + ... + nums[i].

    >>> running_sum([1, 2, 3, 4])
    [1, 3, 6, 10]
    """
    out, s = [], 0
    for x in nums:
        s += x
        out.append(s)
    return out
