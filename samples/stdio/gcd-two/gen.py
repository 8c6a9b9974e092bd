"""Test generator for gcd-two: small edge cases first, then random and large ones.

Run: python samples/stdio/gcd-two/gen.py [--out DIR]  (or python -m samples.build --only gcd-two)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

import math


def solve(text):
    a, b = map(int, text.split())
    return f"{math.gcd(a, b)}\n"


def cases(rng):
    for a, b in [(1, 1), (12, 18), (7, 13), (100, 10), (10**12, 10**12), (999999999989, 1)]:
        yield f"{a} {b}\n"
    for _ in range(6):
        g = rng.randint(1, 10**5)
        yield f"{g * rng.randint(1, 10**6)} {g * rng.randint(1, 10**6)}\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
