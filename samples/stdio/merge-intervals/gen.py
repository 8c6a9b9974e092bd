"""Test generator for merge-intervals: small edge cases first, then random and large ones.

Run: python samples/stdio/merge-intervals/gen.py [--out DIR]  (or python -m samples.build --only merge-intervals)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    data = list(map(int, text.split()))
    n = data[0]
    segs = sorted((data[1 + 2 * i], data[2 + 2 * i]) for i in range(n))
    total, (cl, cr) = 0, segs[0]
    for l, r in segs[1:]:
        if l > cr:
            total += cr - cl
            cl, cr = l, r
        else:
            cr = max(cr, r)
    return f"{total + cr - cl}\n"


def make(rng, n, hi, maxlen):
    rows = []
    for _ in range(n):
        l = rng.randint(0, hi - 1)
        rows.append(f"{l} {min(hi, l + rng.randint(1, maxlen))}")
    return f"{n}\n" + "\n".join(rows) + "\n"


def cases(rng):
    yield "1\n0 1\n"
    yield "2\n0 5\n5 10\n"
    yield "3\n1 5\n3 7\n10 12\n"
    yield "2\n0 1000000000\n0 1000000000\n"
    yield "3\n1 10\n2 3\n4 5\n"
    for n, hi, maxlen in [(10, 100, 10), (100, 1000, 50), (1000, 10**9, 10**6), (2 * 10**5, 10**9, 10**4), (2 * 10**5, 10**9, 10**9)]:
        yield make(rng, n, hi, maxlen)


if __name__ == "__main__":
    main(__file__, cases, solve)
