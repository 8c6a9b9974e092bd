"""Test generator for string-length: small edge cases first, then random and large ones.

Run: python samples/stdio/string-length/gen.py [--out DIR]  (or python -m samples.build --only string-length)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    return f"{len(text.split(chr(10))[0])}\n"


def cases(rng):
    for s in ["a", "ab", "hi there", "a b c", "x" * 1000]:
        yield s + "\n"
    for n in (5, 30, 200, 700, 999):
        s = "".join(rng.choice("abc d") for _ in range(n))
        yield "q" + s.strip() + "q\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
