"""Test generator for pattern-count: small edge cases first, then random and large ones.

Run: python samples/stdio/pattern-count/gen.py [--out DIR]  (or python -m samples.build --only pattern-count)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    s, p = text.split()
    count = 0
    i = s.find(p)
    while i != -1:
        count += 1
        i = s.find(p, i + 1)
    return f"{count}\n"


def cases(rng):
    for s, p in [("a", "a"), ("a", "b"), ("ab", "abc"), ("aaaa", "aa"), ("abababa", "aba")]:
        yield f"{s}\n{p}\n"
    yield "a" * 10**6 + "\n" + "a" * 10 + "\n"
    yield "a" * 10**6 + "\n" + "a" * 1000 + "b\n"
    yield "ab" * 500000 + "\n" + "abab" + "\n"
    for n, alpha, m in [(1000, "ab", 3), (10**5, "abc", 4), (10**6, "ab", 10), (10**6, "abcdefghij", 2)]:
        s = "".join(rng.choice(alpha) for _ in range(n))
        yield s + "\n" + "".join(rng.choice(alpha) for _ in range(m)) + "\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
