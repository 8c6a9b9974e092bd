"""Test generator for uppercase-string: small edge cases first, then random and large ones.

Run: python samples/stdio/uppercase-string/gen.py [--out DIR]  (or python -m samples.build --only uppercase-string)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

import string


def solve(text):
    return text.strip().upper() + "\n"


def cases(rng):
    for s in ["a", "z", "abc", "hello", "python"]:
        yield s + "\n"
    for n in (10, 100, 500, 999, 1000):
        yield "".join(rng.choice(string.ascii_lowercase) for _ in range(n)) + "\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
