"""Test generator for count-even-odd: small edge cases first, then random and large ones.

Run: python samples/stdio/count-even-odd/gen.py [--out DIR]  (or python -m samples.build --only count-even-odd)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    a = list(map(int, text.split()[1:]))
    ev = sum(1 for x in a if x % 2 == 0)
    return f"{ev} {len(a) - ev}\n"


def cases(rng):
    for a in [[1], [2], [-3, -4], [0, 0, 1], [1, 2, 3, 4, 6]]:
        yield f"{len(a)}\n" + ints_line(a)
    for n in (10, 100, 500, 1000, 1000):
        yield f"{n}\n" + ints_line(rng.randint(-10**9, 10**9) for _ in range(n))


if __name__ == "__main__":
    main(__file__, cases, solve)
