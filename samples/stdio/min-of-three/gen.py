"""Test generator for min-of-three: small edge cases first, then random and large ones.

Run: python samples/stdio/min-of-three/gen.py [--out DIR]  (or python -m samples.build --only min-of-three)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    return f"{min(map(int, text.split()))}\n"


def cases(rng):
    for t in [(1, 2, 3), (3, 2, 1), (2, 3, 1), (5, 5, 5), (-1, 0, -1), (10**9, -10**9, 0)]:
        yield " ".join(map(str, t)) + "\n"
    for _ in range(6):
        yield " ".join(str(rng.randint(-10**9, 10**9)) for _ in range(3)) + "\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
