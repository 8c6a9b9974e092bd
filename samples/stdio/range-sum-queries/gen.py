"""Test generator for range-sum-queries: small edge cases first, then random and large ones.

Run: python samples/stdio/range-sum-queries/gen.py [--out DIR]  (or python -m samples.build --only range-sum-queries)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    data = text.split()
    n, q = int(data[0]), int(data[1])
    pre = [0] * (n + 1)
    for i in range(n):
        pre[i + 1] = pre[i] + int(data[2 + i])
    out = []
    pos = 2 + n
    for _ in range(q):
        l, r = int(data[pos]), int(data[pos + 1])
        pos += 2
        out.append(pre[r] - pre[l - 1])
    return "\n".join(map(str, out)) + "\n"


def make(rng, n, q, hi=10**9):
    a = [rng.randint(0, hi) for _ in range(n)]
    qs = []
    for _ in range(q):
        l = rng.randint(1, n)
        qs.append(f"{l} {rng.randint(l, n)}")
    return f"{n} {q}\n" + ints_line(a) + "\n".join(qs) + "\n"


def cases(rng):
    yield "1 1\n7\n1 1\n"
    yield "3 3\n0 0 0\n1 3\n2 2\n3 3\n"
    yield "5 3\n1 2 3 4 5\n1 5\n2 3\n4 4\n"
    yield "2 2\n1000000000 1000000000\n1 2\n2 2\n"
    for n, q in [(10, 10), (100, 100), (1000, 1000), (10**4, 10**4), (10**5, 10**5)]:
        yield make(rng, n, q)
    # The big ones: about 5 MB of numbers each.
    yield make(rng, 3 * 10**5, 3 * 10**5)
    yield make(rng, 3 * 10**5, 3 * 10**5)


if __name__ == "__main__":
    main(__file__, cases, solve)
