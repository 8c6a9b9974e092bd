"""Test generator for count-less-equal: small edge cases first, then random and large ones.

Run: python samples/stdio/count-less-equal/gen.py [--out DIR]  (or python -m samples.build --only count-less-equal)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

from bisect import bisect_right


def solve(text):
    data = text.split()
    n, q = int(data[0]), int(data[1])
    a = sorted(map(int, data[2:2 + n]))
    return " ".join(str(bisect_right(a, int(x))) for x in data[2 + n:2 + n + q]) + "\n"


def make(rng, n, q, hi):
    return f"{n} {q}\n" + ints_line(rng.randint(-hi, hi) for _ in range(n)) + ints_line(rng.randint(-hi, hi) for _ in range(q))


def cases(rng):
    yield "1 1\n5\n5\n"
    yield "1 2\n5\n4 6\n"
    yield "5 3\n4 1 4 9 2\n4 0 100\n"
    yield "3 3\n-1000000000 0 1000000000\n-1000000000 1000000000 -999999999\n"
    for n, q, hi in [(10, 10, 5), (100, 100, 50), (1000, 1000, 10**9), (10**5, 10**5, 10**3), (2 * 10**5, 2 * 10**5, 10**9), (2 * 10**5, 2 * 10**5, 10)]:
        yield make(rng, n, q, hi)


if __name__ == "__main__":
    main(__file__, cases, solve)
