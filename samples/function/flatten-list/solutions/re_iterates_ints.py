def flatten(items):
    return [y for x in items for y in x]
