"""Test generator for lis-length: small edge cases first, then random and large ones.

Run: python samples/stdio/lis-length/gen.py [--out DIR]  (or python -m samples.build --only lis-length)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

from bisect import bisect_left


def solve(text):
    data = text.split()
    tails = []
    for x in map(int, data[1:]):
        k = bisect_left(tails, x)
        if k == len(tails):
            tails.append(x)
        else:
            tails[k] = x
    return f"{len(tails)}\n"


def cases(rng):
    for a in [[5], [2, 2, 2], [3, 2, 1], [1, 2, 3], [3, 1, 4, 1, 5, 9, 2, 6]]:
        yield f"{len(a)}\n" + ints_line(a)
    for n, hi in [(100, 10), (1000, 10**9), (10**4, 100), (2 * 10**5, 10**9), (2 * 10**5, 1000)]:
        yield f"{n}\n" + ints_line(rng.randint(-hi, hi) for _ in range(n))
    yield f"{2 * 10**5}\n" + ints_line(range(-10**5, 10**5))


if __name__ == "__main__":
    main(__file__, cases, solve)
