"""Test generator for dijkstra: small edge cases first, then random and large ones.

Run: python samples/stdio/dijkstra/gen.py [--out DIR]  (or python -m samples.build --only dijkstra)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

import heapq


def solve(text):
    data = list(map(int, text.split()))
    n, m = data[0], data[1]
    adj = [[] for _ in range(n + 1)]
    for i in range(m):
        adj[data[2 + 3 * i]].append((data[3 + 3 * i], data[4 + 3 * i]))
    dist = [None] * (n + 1)
    dist[1] = 0
    pq = [(0, 1)]
    while pq:
        d, u = heapq.heappop(pq)
        if d > dist[u]:
            continue
        for v, w in adj[u]:
            if dist[v] is None or d + w < dist[v]:
                dist[v] = d + w
                heapq.heappush(pq, (d + w, v))
    return " ".join("-1" if x is None else str(x) for x in dist[1:]) + "\n"


def make(rng, n, m, wmax):
    edges = [f"{rng.randint(1, n)} {rng.randint(1, n)} {rng.randint(1, wmax)}" for _ in range(m)]
    return f"{n} {m}\n" + "".join(e + "\n" for e in edges)


def cases(rng):
    yield "1 0\n"
    yield "2 0\n"
    yield "2 1\n2 1 5\n"
    yield "4 4\n1 2 5\n1 3 2\n3 2 1\n2 4 10\n"
    yield "3 3\n1 2 1000000000\n2 3 1000000000\n1 3 1000000000\n"
    for n, m, wmax in [(10, 20, 10), (100, 300, 1000), (1000, 5000, 10**9), (10**4, 5 * 10**4, 10**9), (10**5, 2 * 10**5, 10**9), (10**5, 2 * 10**5, 3)]:
        yield make(rng, n, m, wmax)
    # A chain 1 -> 2 -> ... -> n plus shortcuts: long shortest paths of big weights.
    n = 10**5
    chain = [f"{i} {i + 1} {10**9}" for i in range(1, n)]
    extra = [f"{rng.randint(1, n)} {rng.randint(1, n)} {10**9}" for _ in range(10**5)]
    yield f"{n} {len(chain) + len(extra)}\n" + "\n".join(chain + extra) + "\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
