"""Test generator for sort-numbers: small edge cases first, then random and large ones.

Run: python samples/stdio/sort-numbers/gen.py [--out DIR]  (or python -m samples.build --only sort-numbers)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    a = sorted(map(int, text.split()[1:]))
    return " ".join(map(str, a)) + "\n"


def cases(rng):
    for a in [[1], [2, 1], [3, 20, 100], [-5, 5, 0], [7, 7, 7]]:
        yield f"{len(a)}\n" + ints_line(a)
    for n in (10, 50, 100, 1000, 1000):
        yield f"{n}\n" + ints_line(rng.randint(-10**9, 10**9) for _ in range(n))


if __name__ == "__main__":
    main(__file__, cases, solve)
