def merge_sorted(a, b):
    a, b = list(a), list(b)
    out = []
    while a or b:
        out.append(a.pop(0) if not b or a[0] <= b[0] else b.pop(0))
    return out
