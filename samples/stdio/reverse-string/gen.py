"""Test generator for reverse-string: small edge cases first, then random and large ones.

Run: python samples/stdio/reverse-string/gen.py [--out DIR]  (or python -m samples.build --only reverse-string)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

import string


def solve(text):
    return text.strip()[::-1] + "\n"


def cases(rng):
    for s in ["a", "ab", "aba", "abc", "racecar"]:
        yield s + "\n"
    for n in (10, 50, 200, 999, 1000):
        yield "".join(rng.choice(string.ascii_lowercase) for _ in range(n)) + "\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
