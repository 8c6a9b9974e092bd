"""Test generator for sum-1-to-n: small edge cases first, then random and large ones.

Run: python samples/stdio/sum-1-to-n/gen.py [--out DIR]  (or python -m samples.build --only sum-1-to-n)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    n = int(text)
    return f"{n * (n + 1) // 2}\n"


def cases(rng):
    for n in [1, 2, 10, 100, 10**9, 999999999]:
        yield f"{n}\n"
    for _ in range(6):
        yield f"{rng.randint(1, 10**9)}\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
