"""Test generator for count-divisors: small edge cases first, then random and large ones.

Run: python samples/stdio/count-divisors/gen.py [--out DIR]  (or python -m samples.build --only count-divisors)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    n = int(text)
    c, d = 0, 1
    while d * d <= n:
        if n % d == 0:
            c += 1 if d * d == n else 2
        d += 1
    return f"{c}\n"


def cases(rng):
    for n in [1, 2, 12, 16, 36, 97, 999999999989, 963761198400, 10**12]:
        yield f"{n}\n"
    for _ in range(3):
        yield f"{rng.randint(10**11, 10**12)}\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
