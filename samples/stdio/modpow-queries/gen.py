"""Test generator for modpow-queries: small edge cases first, then random and large ones.

Run: python samples/stdio/modpow-queries/gen.py [--out DIR]  (or python -m samples.build --only modpow-queries)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    data = list(map(int, text.split()))
    q = data[0]
    return "\n".join(str(pow(data[1 + 3 * i], data[2 + 3 * i], data[3 + 3 * i])) for i in range(q)) + "\n"


def make(rng, q, bmax):
    rows = [f"{rng.randint(0, 10**9)} {rng.randint(0, bmax)} {rng.randint(1, 10**9)}" for _ in range(q)]
    return f"{q}\n" + "\n".join(rows) + "\n"


def cases(rng):
    yield "1\n2 10 1000\n"
    yield "1\n3 0 7\n"
    yield "1\n5 0 1\n"
    yield "3\n2 10 1000\n3 0 7\n5 3 1\n"
    yield "2\n0 0 5\n0 5 5\n"
    for q, bmax in [(10, 100), (100, 10**9), (1000, 10**18), (10**5, 10**18), (10**5, 10)]:
        yield make(rng, q, bmax)


if __name__ == "__main__":
    main(__file__, cases, solve)
