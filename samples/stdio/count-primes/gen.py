"""Test generator for count-primes: small edge cases first, then random and large ones.

Run: python samples/stdio/count-primes/gen.py [--out DIR]  (or python -m samples.build --only count-primes)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    n = int(text)
    sieve = bytearray([1]) * (n + 1)
    sieve[0] = 0
    if n >= 1:
        sieve[1] = 0
    i = 2
    while i * i <= n:
        if sieve[i]:
            sieve[i * i::i] = bytes(len(range(i * i, n + 1, i)))
        i += 1
    return f"{sum(sieve)}\n"


def cases(rng):
    for n in [1, 2, 3, 10, 100, 10**4, 10**6, 5 * 10**6]:
        yield f"{n}\n"
    for _ in range(4):
        yield f"{rng.randint(10**5, 5 * 10**6)}\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
