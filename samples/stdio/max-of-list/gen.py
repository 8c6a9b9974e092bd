"""Test generator for max-of-list: small edge cases first, then random and large ones.

Run: python samples/stdio/max-of-list/gen.py [--out DIR]  (or python -m samples.build --only max-of-list)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    nums = list(map(int, text.split()))[1:]
    return f"{max(nums)}\n"


def cases(rng):
    for a in [[-5], [-3, -8, -1], [0], [4, 4, 4], [10**9, -10**9]]:
        yield f"{len(a)}\n" + ints_line(a)
    for n in (10, 100, 500, 1000, 1000):
        yield f"{n}\n" + ints_line(rng.randint(-10**9, 10**9) for _ in range(n))


if __name__ == "__main__":
    main(__file__, cases, solve)
