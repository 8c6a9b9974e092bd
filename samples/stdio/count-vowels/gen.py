"""Test generator for count-vowels: small edge cases first, then random and large ones.

Run: python samples/stdio/count-vowels/gen.py [--out DIR]  (or python -m samples.build --only count-vowels)
"""

from samples.genlib import ints_line, main  # noqa: F401


import string


def solve(text):
    line = text.split("\n")[0]
    return f"{sum(1 for c in line if c in 'aeiou')}\n"


def cases(rng):
    for s in ["a", "xyz", "yy y", "aeiou", "rhythm and blues"]:
        yield s + "\n"
    for n in (5, 20, 100, 500, 1000):
        chars = string.ascii_lowercase + "    "
        s = "".join(rng.choice(chars) for _ in range(n)).strip() or "y"
        yield s + "\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
