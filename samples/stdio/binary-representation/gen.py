"""Test generator for binary-representation: small edge cases first, then random and large ones.

Run: python samples/stdio/binary-representation/gen.py [--out DIR]  (or python -m samples.build --only binary-representation)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    return format(int(text), "b") + "\n"


def cases(rng):
    for n in [0, 1, 2, 10, 255, 256, 10**18]:
        yield f"{n}\n"
    for _ in range(5):
        yield f"{rng.randint(0, 10**18)}\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
