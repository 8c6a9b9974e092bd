"""Test generator for prime-check: small edge cases first, then random and large ones.

Run: python samples/stdio/prime-check/gen.py [--out DIR]  (or python -m samples.build --only prime-check)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def is_prime(n):
    if n < 2:
        return False
    d = 2
    while d * d <= n:
        if n % d == 0:
            return False
        d += 1
    return True


def solve(text):
    return "YES\n" if is_prime(int(text)) else "NO\n"


def cases(rng):
    for n in [1, 2, 3, 4, 97, 100, 999999999989, 999999000001, 10**12]:
        yield f"{n}\n"
    for _ in range(3):
        yield f"{rng.randint(10**11, 10**12)}\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
