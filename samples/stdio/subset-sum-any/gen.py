"""Test generator for subset-sum-any: small edge cases first, then random and large ones.

Run: python samples/stdio/subset-sum-any/gen.py [--out DIR]  (or python -m samples.build --only subset-sum-any)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    data = list(map(int, text.split()))
    n, T = data[0], data[1]
    a = data[2:2 + n]
    mask = (1 << (T + 1)) - 1
    reach = [1]
    for x in a:
        reach.append((reach[-1] | (reach[-1] << x)) & mask)
    if not (reach[n] >> T) & 1:
        return "-1\n"
    chosen, s = [], T
    for i in range(n, 0, -1):
        if not (reach[i - 1] >> s) & 1:
            chosen.append(i)
            s -= a[i - 1]
    return " ".join(map(str, [len(chosen)] + sorted(chosen))) + "\n"


def cases(rng):
    yield "3 6\n5 3 3\n"
    yield "1 5\n5\n"
    yield "1 4\n5\n"
    yield "4 10\n3 4 5 9\n"
    yield "3 7\n2 4 6\n"
    for n, T, hi in [(10, 50, 20), (30, 500, 100), (100, 10**5, 1000), (100, 25000, 1000), (100, 99999, 1000), (100, 4999, 100)]:
        yield f"{n} {T}\n" + ints_line(rng.randint(1, hi) for _ in range(n))
    yield "100 99999\n" + ints_line([1000] * 100)


if __name__ == "__main__":
    main(__file__, cases, solve)
