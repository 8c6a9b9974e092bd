"""Test generator for circle-area: small edge cases first, then random and large ones.

Run: python samples/stdio/circle-area/gen.py [--out DIR]  (or python -m samples.build --only circle-area)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

import math


def solve(text):
    r = int(text)
    return f"{math.pi * r * r:.9f}\n"


def cases(rng):
    for r in [1, 2, 3, 10, 9999, 10000]:
        yield f"{r}\n"
    for _ in range(6):
        yield f"{rng.randint(1, 10**4)}\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
