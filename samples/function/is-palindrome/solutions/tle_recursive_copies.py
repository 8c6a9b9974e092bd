def is_palindrome(text):
    while len(text) > 1 and text[0] == text[-1]:
        text = text[:]  # forgot to shrink the string
    return len(text) <= 1
