"""Test generator for leap-year: small edge cases first, then random and large ones.

Run: python samples/stdio/leap-year/gen.py [--out DIR]  (or python -m samples.build --only leap-year)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    y = int(text)
    return "YES\n" if (y % 4 == 0 and y % 100 != 0) or y % 400 == 0 else "NO\n"


def cases(rng):
    for y in [1, 4, 100, 400, 1900, 2000, 2023, 2024]:
        yield f"{y}\n"
    for _ in range(4):
        yield f"{rng.randint(1, 10**9)}\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
