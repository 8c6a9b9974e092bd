nums = list(range(0, 2 * 10**6, 2))
assert all(search(nums, x) == x // 2 for x in range(0, 2 * 10**6, 1999 * 2))
assert search(nums, 1999999) == -1
