def reverse_words(sentence):
    words = sentence.split(' ')
    return ' '.join(words[len(words) - i] for i in range(len(words)))
