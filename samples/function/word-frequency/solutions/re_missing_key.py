def word_frequency(text):
    counts = {}
    for w in text.lower().split():
        counts[w] += 1
    return counts
