"""Test generator for fib-mod-big: small edge cases first, then random and large ones.

Run: python samples/stdio/fib-mod-big/gen.py [--out DIR]  (or python -m samples.build --only fib-mod-big)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

MOD = 10**9 + 7


def fib(n):
    if n == 0:
        return 0, 1
    a, b = fib(n >> 1)
    c = a * (2 * b - a) % MOD
    d = (a * a + b * b) % MOD
    return (d, (c + d) % MOD) if n & 1 else (c, d)


def solve(text):
    return f"{fib(int(text))[0]}\n"


def cases(rng):
    for n in [0, 1, 2, 10, 50, 10**6, 10**18, 10**18 - 1]:
        yield f"{n}\n"
    for _ in range(4):
        yield f"{rng.randint(10**9, 10**18)}\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
