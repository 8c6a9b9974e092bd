def roman_to_int(s):
    val = {'I': 1, 'V': 5, 'X': 10, 'L': 50, 'C': 100, 'D': 500, 'M': 1000}
    total, i = 0, 0
    while i < len(s):
        if i + 1 < len(s) and val[s[i + 1]] > val[s[i]]:
            total += val[s[i + 1]] - val[s[i]]
            i += 2
        else:
            total += val[s[i]]
            i += 0 if s[i] == 'I' else 1
    return total
