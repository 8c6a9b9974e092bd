assert reverse_words('the sky is blue') == 'blue is sky the'
assert reverse_words('hello') == 'hello'
