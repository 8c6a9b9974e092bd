"""Test generator for count-vowels: small edge cases first, then random and large ones.

Run: python samples/stdio/count-vowels/gen.py [--out DIR]  (or python -m samples.build --only count-vowels)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

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
