"""Test generator for factorial: small edge cases first, then random and large ones.

Run: python samples/stdio/factorial/gen.py [--out DIR]  (or python -m samples.build --only factorial)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

import math


def solve(text):
    return f"{math.factorial(int(text))}\n"


def cases(rng):
    for n in [0, 1, 2, 3, 5, 10, 19, 20]:
        yield f"{n}\n"
    for n in rng.sample(range(4, 20), 4):
        yield f"{n}\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
