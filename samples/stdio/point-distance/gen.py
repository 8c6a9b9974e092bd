"""Test generator for point-distance: small edge cases first, then random and large ones.

Run: python samples/stdio/point-distance/gen.py [--out DIR]  (or python -m samples.build --only point-distance)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

import math


def solve(text):
    x1, y1, x2, y2 = map(int, text.split())
    return f"{math.hypot(x2 - x1, y2 - y1):.9f}\n"


def cases(rng):
    for p in [(0, 0, 3, 4), (1, 1, 1, 1), (0, 0, 0, 5), (-10000, -10000, 10000, 10000), (1, 2, 3, 5)]:
        yield " ".join(map(str, p)) + "\n"
    for _ in range(7):
        yield " ".join(str(rng.randint(-10**4, 10**4)) for _ in range(4)) + "\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
