"""Test generator for edit-distance: small edge cases first, then random and large ones.

Run: python samples/stdio/edit-distance/gen.py [--out DIR]  (or python -m samples.build --only edit-distance)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    a, b = text.split()
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
        prev = cur
    return f"{prev[-1]}\n"


def word(rng, n, alpha):
    return "".join(rng.choice(alpha) for _ in range(n))


def cases(rng):
    for a, b in [("a", "a"), ("a", "b"), ("ab", "ba"), ("kitten", "sitting"), ("abc", "abcdef")]:
        yield f"{a}\n{b}\n"
    for n, m, alpha in [(20, 25, "ab"), (100, 80, "abc"), (1000, 1000, "ab"), (1000, 1000, "abcdefghijklmnopqrstuvwxyz"), (1000, 10, "abc")]:
        yield f"{word(rng, n, alpha)}\n{word(rng, m, alpha)}\n"
    yield "a" * 1000 + "\n" + "b" * 1000 + "\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
