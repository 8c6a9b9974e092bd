# only 1 + 3 makes 4: every other pair is far larger
nums = [10**6 + 2 * i for i in range(10**5)] + [1, 3]
assert two_sum(nums, 4) == (len(nums) - 2, len(nums) - 1)
