"""Test generator for multiplication-table: small edge cases first, then random and large ones.

Run: python samples/stdio/multiplication-table/gen.py [--out DIR]  (or python -m samples.build --only multiplication-table)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    n = int(text)
    return "".join(f"{n} x {i} = {n * i}\n" for i in range(1, 11))


def cases(rng):
    for n in [1, 2, 3, 10, 999999, 10**6]:
        yield f"{n}\n"
    for _ in range(6):
        yield f"{rng.randint(1, 10**6)}\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
