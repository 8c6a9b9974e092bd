"""Test generator for topo-order: small edge cases first, then random and large ones.

Run: python samples/stdio/topo-order/gen.py [--out DIR]  (or python -m samples.build --only topo-order)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

from collections import deque


def solve(text):
    data = list(map(int, text.split()))
    n, m = data[0], data[1]
    adj = [[] for _ in range(n + 1)]
    indeg = [0] * (n + 1)
    for i in range(m):
        a, b = data[2 + 2 * i], data[3 + 2 * i]
        adj[a].append(b)
        indeg[b] += 1
    q = deque(v for v in range(1, n + 1) if indeg[v] == 0)
    order = []
    while q:
        v = q.popleft()
        order.append(v)
        for u in adj[v]:
            indeg[u] -= 1
            if indeg[u] == 0:
                q.append(u)
    return (" ".join(map(str, order)) if len(order) == n else "IMPOSSIBLE") + "\n"


def dag(rng, n, m, cycle=False):
    perm = list(range(1, n + 1))
    rng.shuffle(perm)
    edges = []
    for _ in range(m):
        i, j = sorted(rng.sample(range(n), 2))
        edges.append((perm[i], perm[j]))
    if cycle:
        edges.append((perm[-1], perm[0]))
        edges.append((perm[0], perm[-1]))
    return f"{n} {len(edges)}\n" + "".join(f"{a} {b}\n" for a, b in edges)


def cases(rng):
    yield "2 1\n2 1\n"
    yield "1 0\n"
    yield "2 2\n1 2\n2 1\n"
    yield "4 3\n1 2\n1 3\n3 2\n"
    yield "3 3\n1 2\n2 3\n3 1\n"
    for n, m, cyc in [(10, 15, False), (100, 300, False), (1000, 3000, True), (10**5, 2 * 10**5 - 2, False), (2 * 10**5, 2 * 10**5 - 2, False), (10**5, 10**5, True)]:
        yield dag(rng, n, m, cyc)
    n = 2 * 10**5
    yield f"{n} {n - 1}\n" + "".join(f"{i + 1} {i}\n" for i in range(1, n))


if __name__ == "__main__":
    main(__file__, cases, solve)
