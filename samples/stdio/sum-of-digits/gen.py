"""Test generator for sum-of-digits: small edge cases first, then random and large ones.

Run: python samples/stdio/sum-of-digits/gen.py [--out DIR]  (or python -m samples.build --only sum-of-digits)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    return f"{sum(int(c) for c in text.strip())}\n"


def cases(rng):
    for n in [0, 7, 10, 99, 1000000000000000000, 999999999999999999]:
        yield f"{n}\n"
    for _ in range(6):
        yield f"{rng.randint(0, 10**18)}\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
