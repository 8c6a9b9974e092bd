"""Test generator for fibonacci-nth: small edge cases first, then random and large ones.

Run: python samples/stdio/fibonacci-nth/gen.py [--out DIR]  (or python -m samples.build --only fibonacci-nth)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    a, b = 0, 1
    for _ in range(int(text)):
        a, b = b, a + b
    return f"{a}\n"


def cases(rng):
    for n in [0, 1, 2, 3, 10, 20, 60, 89, 90]:
        yield f"{n}\n"
    for n in rng.sample(range(61, 89), 3):
        yield f"{n}\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
