"""Test generator for average-floor: small edge cases first, then random and large ones.

Run: python samples/stdio/average-floor/gen.py [--out DIR]  (or python -m samples.build --only average-floor)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    data = list(map(int, text.split()))
    return f"{sum(data[1:]) // data[0]}\n"


def cases(rng):
    for a in [[1, 2], [5], [0, 0], [1, 2, 3, 5], [10**6, 10**6, 10**6 - 1]]:
        yield f"{len(a)}\n" + ints_line(a)
    for n in (10, 100, 999, 1000, 7, 3, 1000):
        yield f"{n}\n" + ints_line(rng.randint(0, 10**6) for _ in range(n))


if __name__ == "__main__":
    main(__file__, cases, solve)
