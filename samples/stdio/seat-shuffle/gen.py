"""Test generator for seat-shuffle: small edge cases first, then random and large ones.

Run: python samples/stdio/seat-shuffle/gen.py [--out DIR]  (or python -m samples.build --only seat-shuffle)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    n = int(text)
    return " ".join(str(i % n + 1) for i in range(1, n + 1)) + "\n"


def cases(rng):
    for n in [2, 3, 4, 5, 10, 200000, 199999]:
        yield f"{n}\n"
    for _ in range(5):
        yield f"{rng.randint(6, 2 * 10**5)}\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
