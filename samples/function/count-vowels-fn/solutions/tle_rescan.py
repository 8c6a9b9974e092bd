def count_vowels(s):
    count = 0
    i = 0
    while i < len(s):
        if s[i].lower() in 'aeiou':
            count += 1
        else:
            continue  # forgets to advance past consonants
        i += 1
    return count
