"""Test generator for longest-subarray-sum: small edge cases first, then random and large ones.

Run: python samples/stdio/longest-subarray-sum/gen.py [--out DIR]  (or python -m samples.build --only longest-subarray-sum)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    data = text.split()
    n, S = int(data[0]), int(data[1])
    a = list(map(int, data[2:2 + n]))
    best = lo = cur = 0
    for hi in range(n):
        cur += a[hi]
        while cur > S:
            cur -= a[lo]
            lo += 1
        best = max(best, hi - lo + 1)
    return f"{best}\n"


def cases(rng):
    yield "1 1\n5\n"
    yield "1 5\n5\n"
    yield "3 2\n3 4 5\n"
    yield "5 7\n2 3 1 5 1\n"
    yield "4 100\n1 2 3 4\n"
    for n, hi in [(10, 10), (100, 100), (1000, 10**6), (10**5, 10**9), (2 * 10**5, 10**9), (2 * 10**5, 10)]:
        a = [rng.randint(1, hi) for _ in range(n)]
        S = rng.randint(1, sum(a) // 3 + 1)
        yield f"{n} {S}\n" + ints_line(a)


if __name__ == "__main__":
    main(__file__, cases, solve)
