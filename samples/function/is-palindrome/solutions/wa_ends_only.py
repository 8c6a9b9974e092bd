def is_palindrome(text):
    return text[:1] == text[-1:]
