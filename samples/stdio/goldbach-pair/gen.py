"""Test generator for goldbach-pair: small edge cases first, then random and large ones.

Run: python samples/stdio/goldbach-pair/gen.py [--out DIR]  (or python -m samples.build --only goldbach-pair)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def is_prime(x):
    if x < 2:
        return False
    d = 2
    while d * d <= x:
        if x % d == 0:
            return False
        d += 1
    return True


def solve(text):
    n = int(text)
    p = 2
    while not (is_prime(p) and is_prime(n - p)):
        p += 1
    return f"{p} {n - p}\n"


def cases(rng):
    for n in [4, 6, 8, 10, 28, 1000000000, 999999998]:
        yield f"{n}\n"
    for _ in range(5):
        yield f"{rng.randint(2, 5 * 10**8) * 2}\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
