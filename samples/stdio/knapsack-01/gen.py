"""Test generator for knapsack-01: small edge cases first, then random and large ones.

Run: python samples/stdio/knapsack-01/gen.py [--out DIR]  (or python -m samples.build --only knapsack-01)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    data = list(map(int, text.split()))
    n, W = data[0], data[1]
    best = [0] * (W + 1)
    for i in range(n):
        w, v = data[2 + 2 * i], data[3 + 2 * i]
        for c in range(W, w - 1, -1):
            if best[c - w] + v > best[c]:
                best[c] = best[c - w] + v
    return f"{best[W]}\n"


def make(rng, n, W, wmax, vmax):
    items = [f"{rng.randint(1, wmax)} {rng.randint(0, vmax)}" for _ in range(n)]
    return f"{n} {W}\n" + "\n".join(items) + "\n"


def cases(rng):
    yield "1 1\n2 10\n"
    yield "1 5\n5 7\n"
    yield "3 5\n2 3\n3 4\n4 5\n"
    yield "2 10\n5 10\n5 10\n"
    yield "3 4\n1 1\n1 1\n2 5\n"
    for n, W, wmax, vmax in [(10, 50, 20, 100), (50, 1000, 200, 10**6), (100, 10**4, 10**4, 10**9), (100, 10**4, 300, 10**9), (100, 10**4, 10, 1000), (100, 10**4, 10**4, 1)]:
        yield make(rng, n, W, wmax, vmax)


if __name__ == "__main__":
    main(__file__, cases, solve)
