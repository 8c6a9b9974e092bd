assert reverse_words('  a   b ') == 'b a'
assert reverse_words('') == ''
