def is_palindrome(text):
    if text[0] != text[-1]:
        return False
    return text == text[::-1]
