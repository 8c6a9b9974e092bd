"""Test generator for count-words: small edge cases first, then random and large ones.

Run: python samples/stdio/count-words/gen.py [--out DIR]  (or python -m samples.build --only count-words)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    return f"{len(text.split())}\n"


def cases(rng):
    for s in ["a", "hello world", "  leading", "two  spaces here", "trailing   "]:
        yield s + "\n"
    for n in (3, 10, 50, 100, 150):
        words = ["".join(rng.choice("abcdefg") for _ in range(rng.randint(1, 5))) for _ in range(n)]
        yield "".join(w + " " * rng.randint(1, 3) for w in words).rstrip() + "\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
