"""Test generator for palindrome-check: small edge cases first, then random and large ones.

Run: python samples/stdio/palindrome-check/gen.py [--out DIR]  (or python -m samples.build --only palindrome-check)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

import string


def solve(text):
    s = text.strip()
    return "YES\n" if s == s[::-1] else "NO\n"


def cases(rng):
    for s in ["a", "ab", "aa", "abca", "racecar", "abccba"]:
        yield s + "\n"
    for n in (7, 50, 500, 1000):
        half = "".join(rng.choice("abc") for _ in range(n // 2))
        yield (half + half[::-1] if n % 2 == 0 else half + "x" + half[::-1]) + "\n"
    yield "".join(rng.choice(string.ascii_lowercase) for _ in range(999)) + "\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
