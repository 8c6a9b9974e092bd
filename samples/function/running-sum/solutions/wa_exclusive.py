def running_sum(nums):
    out, s = [], 0
    for x in nums:
        out.append(s)
        s += x
    return out
