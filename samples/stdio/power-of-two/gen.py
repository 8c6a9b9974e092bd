"""Test generator for power-of-two: small edge cases first, then random and large ones.

Run: python samples/stdio/power-of-two/gen.py [--out DIR]  (or python -m samples.build --only power-of-two)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    n = int(text)
    return "YES\n" if n > 0 and n & (n - 1) == 0 else "NO\n"


def cases(rng):
    for n in [0, 1, 2, 3, 64, 96, 2**59, 10**18, 2**59 + 1]:
        yield f"{n}\n"
    for _ in range(3):
        yield f"{rng.choice([2 ** rng.randint(0, 59), rng.randint(1, 10**18)])}\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
