"""Test generator for remove-duplicates: small edge cases first, then random and large ones.

Run: python samples/stdio/remove-duplicates/gen.py [--out DIR]  (or python -m samples.build --only remove-duplicates)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    out = []
    for x in map(int, text.split()[1:]):
        if x not in out:
            out.append(x)
    return " ".join(map(str, out)) + "\n"


def cases(rng):
    for a in [[1], [2, 1, 2], [5, 3, 5, 1, 3, 3, 9], [4, 4, 4, 4], [9, 8, 7]]:
        yield f"{len(a)}\n" + ints_line(a)
    for n, hi in [(10, 5), (50, 100), (100, 10), (1000, 100), (1000, 3)]:
        yield f"{n}\n" + ints_line(rng.randint(1, hi) for _ in range(n))


if __name__ == "__main__":
    main(__file__, cases, solve)
