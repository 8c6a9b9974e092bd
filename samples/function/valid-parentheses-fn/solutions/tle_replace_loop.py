def is_valid(s):
    while s:
        s = s.replace('()', '').replace('[]', '').replace('{}', '')
    return True
