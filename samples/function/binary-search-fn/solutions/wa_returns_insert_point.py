import bisect

def search(nums, target):
    return bisect.bisect_left(nums, target)
