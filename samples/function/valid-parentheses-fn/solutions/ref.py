def is_valid(s: str) -> bool:
    """Return True if the brackets ()[]{} in s are balanced and properly nested.
    s contains only bracket characters.

    >>> is_valid("([]{})")
    True
    >>> is_valid("([)]")
    False
    """
    pairs = {')': '(', ']': '[', '}': '{'}
    stack = []
    for c in s:
        if c in '([{':
            stack.append(c)
        elif not stack or stack.pop() != pairs[c]:
            return False
    return not stack
