words = [str(i) for i in range(10000)]
assert reverse_words(' '.join(words)) == ' '.join(reversed(words))
