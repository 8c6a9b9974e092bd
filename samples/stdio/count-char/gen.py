"""Test generator for count-char: small edge cases first, then random and large ones.

Run: python samples/stdio/count-char/gen.py [--out DIR]  (or python -m samples.build --only count-char)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

import string


def solve(text):
    s, c = text.split()
    return f"{s.count(c)}\n"


def cases(rng):
    for s, c in [("a", "a"), ("a", "b"), ("Aa", "a"), ("Banana", "B"), ("AAAA", "A")]:
        yield f"{s}\n{c}\n"
    for n in (10, 100, 500, 1000, 1000):
        s = "".join(rng.choice("aAbBcC") for _ in range(n))
        yield f"{s}\n{rng.choice('aAbBcC')}\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
