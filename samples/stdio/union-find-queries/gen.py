"""Test generator for union-find-queries: small edge cases first, then random and large ones.

Run: python samples/stdio/union-find-queries/gen.py [--out DIR]  (or python -m samples.build --only union-find-queries)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    data = text.split()
    n, q = int(data[0]), int(data[1])
    parent = list(range(n + 1))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    out = []
    for i in range(q):
        op, a, b = data[2 + 3 * i], int(data[3 + 3 * i]), int(data[4 + 3 * i])
        ra, rb = find(a), find(b)
        if op == "union":
            parent[ra] = rb
        else:
            out.append("YES" if ra == rb else "NO")
    return "\n".join(out) + "\n"


def make(rng, n, q, p_union):
    ops = []
    for _ in range(q):
        op = "union" if rng.random() < p_union else "same"
        ops.append(f"{op} {rng.randint(1, n)} {rng.randint(1, n)}")
    return f"{n} {q}\n" + "\n".join(ops) + "\n"


def cases(rng):
    yield "1 1\nsame 1 1\n"
    yield "2 1\nsame 1 2\n"
    yield "4 5\nsame 1 2\nunion 1 2\nunion 2 3\nsame 1 3\nsame 1 4\n"
    yield "3 4\nunion 1 2\nunion 3 2\nsame 1 3\nsame 3 1\n"
    for n, q, p in [(10, 20, 0.4), (100, 300, 0.3), (1000, 3000, 0.2), (10**5, 2 * 10**5, 0.5), (2 * 10**5, 2 * 10**5, 0.1)]:
        yield make(rng, n, q, p)
    # A long chain built by unions, then queries across it.
    n = 2 * 10**5
    ops = [f"union {i} {i + 1}" for i in range(1, n)] + ["same 1 200000"]
    yield f"{n} {len(ops)}\n" + "\n".join(ops) + "\n"
    n = 10**5
    ops = [f"union {i + 1} {i}" for i in range(1, n)] + [f"same {rng.randint(1, n)} {rng.randint(1, n)}" for _ in range(10**5 - 1)]
    yield f"{n} {len(ops)}\n" + "\n".join(ops) + "\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
