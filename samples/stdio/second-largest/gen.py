"""Test generator for second-largest: small edge cases first, then random and large ones.

Run: python samples/stdio/second-largest/gen.py [--out DIR]  (or python -m samples.build --only second-largest)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    a = sorted(map(int, text.split()[1:]))
    return f"{a[-2]}\n"


def cases(rng):
    for a in [[1, 2], [2, 1], [-1, -2, -3], [5, 1, 9, 3], [10**9, -10**9, 0]]:
        yield f"{len(a)}\n" + ints_line(a)
    for n in (10, 100, 1000, 1000, 500):
        yield f"{n}\n" + ints_line(rng.sample(range(-10**9, 10**9), n))


if __name__ == "__main__":
    main(__file__, cases, solve)
