"""Test generator for two-sum-any: small edge cases first, then random and large ones.

Run: python samples/stdio/two-sum-any/gen.py [--out DIR]  (or python -m samples.build --only two-sum-any)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    data = list(map(int, text.split()))
    n, t = data[0], data[1]
    seen = {}
    for i, x in enumerate(data[2:2 + n], 1):
        if t - x in seen:
            return f"{seen[t - x]} {i}\n"
        seen[x] = i
    return "-1\n"


def cases(rng):
    yield "2 6\n3 3\n"
    yield "2 6\n3 5\n"
    yield "1 4\n2\n"
    yield "5 9\n2 7 11 15 -2\n"
    yield "4 -3\n-1 -2 5 -1\n"
    for n, hi in [(10, 10), (100, 1000), (1000, 10**9), (10**5, 10**9), (2 * 10**5, 10**9)]:
        a = [rng.randint(-hi, hi) for _ in range(n)]
        yield f"{n} {a[rng.randrange(n)] + a[rng.randrange(n)]}\n" + ints_line(a)
    # No pair at all: every value is even, the target is odd.
    a = rng.sample(range(-10**9, 10**9, 2), 2 * 10**5)
    yield f"{len(a)} 7\n" + ints_line(a)


if __name__ == "__main__":
    main(__file__, cases, solve)
