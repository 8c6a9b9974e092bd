"""Test generator for abs-difference: small edge cases first, then random and large ones.

Run: python samples/stdio/abs-difference/gen.py [--out DIR]  (or python -m samples.build --only abs-difference)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    a, b = map(int, text.split())
    return f"{abs(a - b)}\n"


def cases(rng):
    for a, b in [(0, 0), (3, -4), (-4, 3), (10**9, -10**9), (-10**9, 10**9)]:
        yield f"{a} {b}\n"
    for _ in range(7):
        yield f"{rng.randint(-10**9, 10**9)} {rng.randint(-10**9, 10**9)}\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
