def two_sum(nums, target):
    seen = {}
    for j, x in enumerate(nums):
        seen[x] = j
        if target - x in seen:
            return (seen[target - x], j)
