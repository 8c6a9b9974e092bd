nums = list(range(0, 2 * 10**5, 2)) + [1, 3]
assert two_sum(nums, 4) == (len(nums) - 2, len(nums) - 1)
