def running_sum(nums):
    # Recomputes every prefix from scratch: about 5 * 10^9 additions on the large test.
    out = []
    for i in range(len(nums)):
        s = 0
        for j in range(i + 1):
            s += nums[j]
        out.append(s)
    return out
