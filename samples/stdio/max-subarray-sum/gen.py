"""Test generator for max-subarray-sum: small edge cases first, then random and large ones.

Run: python samples/stdio/max-subarray-sum/gen.py [--out DIR]  (or python -m samples.build --only max-subarray-sum)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    a = list(map(int, text.split()))[1:]
    best = cur = a[0]
    for x in a[1:]:
        cur = x if cur < 0 else cur + x
        best = max(best, cur)
    return f"{best}\n"


def cases(rng):
    for a in [[-5], [7], [-3, -1, -2], [-2, 3, -1, 4, -10, 2], [10**9] * 5]:
        yield f"{len(a)}\n" + ints_line(a)
    for n in (10, 100, 1000, 10**4, 3 * 10**5):
        yield f"{n}\n" + ints_line(rng.randint(-10**9, 10**9) for _ in range(n))
    yield f"{3 * 10**5}\n" + ints_line(-rng.randint(1, 10**9) for _ in range(3 * 10**5))


if __name__ == "__main__":
    main(__file__, cases, solve)
