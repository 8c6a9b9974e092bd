"""Test generator for is-even: small edge cases first, then random and large ones.

Run: python samples/stdio/is-even/gen.py [--out DIR]  (or python -m samples.build --only is-even)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    n = int(text)
    return "EVEN\n" if n % 2 == 0 else "ODD\n"


def cases(rng):
    for n in [0, 1, -1, 2, -7, 10**9, -10**9 + 1]:
        yield f"{n}\n"
    for _ in range(5):
        yield f"{rng.randint(-10**9, 10**9)}\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
