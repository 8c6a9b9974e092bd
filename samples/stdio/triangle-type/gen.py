"""Test generator for triangle-type: small edge cases first, then random and large ones.

Run: python samples/stdio/triangle-type/gen.py [--out DIR]  (or python -m samples.build --only triangle-type)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    a, b, c = sorted(map(int, text.split()))
    if a + b <= c:
        return "invalid\n"
    if a == c:
        return "equilateral\n"
    if a == b or b == c:
        return "isosceles\n"
    return "scalene\n"


def cases(rng):
    for t in [(1, 2, 3), (3, 4, 5), (2, 2, 2), (2, 2, 3), (1, 1, 2), (10**9, 10**9, 10**9), (1, 10**9, 10**9), (5, 1, 1)]:
        yield " ".join(map(str, t)) + "\n"
    for _ in range(4):
        yield " ".join(str(rng.randint(1, 20)) for _ in range(3)) + "\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
