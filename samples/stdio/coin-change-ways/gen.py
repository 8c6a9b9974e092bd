"""Test generator for coin-change-ways: small edge cases first, then random and large ones.

Run: python samples/stdio/coin-change-ways/gen.py [--out DIR]  (or python -m samples.build --only coin-change-ways)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    data = list(map(int, text.split()))
    k, A = data[0], data[1]
    ways = [1] + [0] * A
    for c in data[2:2 + k]:
        for s in range(c, A + 1):
            ways[s] = (ways[s] + ways[s - c]) % 1000000007
    return f"{ways[A]}\n"


def cases(rng):
    for k, A, coins in [(1, 0, [5]), (1, 3, [2]), (1, 4, [2]), (3, 5, [1, 2, 5]), (2, 3, [1, 2])]:
        yield f"{k} {A}\n" + ints_line(coins)
    for k, A, cmax in [(5, 100, 20), (10, 1000, 100), (50, 10**4, 10**4), (50, 10**4, 60), (20, 10**4, 10)]:
        k = min(k, cmax)
        yield f"{k} {A}\n" + ints_line(rng.sample(range(1, cmax + 1), k))
    yield "50 10000\n" + ints_line(range(1, 51))


if __name__ == "__main__":
    main(__file__, cases, solve)
