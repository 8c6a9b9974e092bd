"""Test generator for bipartite-coloring: small edge cases first, then random and large ones.

Run: python samples/stdio/bipartite-coloring/gen.py [--out DIR]  (or python -m samples.build --only bipartite-coloring)
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
    for i in range(m):
        u, v = data[2 + 2 * i], data[3 + 2 * i]
        adj[u].append(v)
        adj[v].append(u)
    team = [0] * (n + 1)
    for s in range(1, n + 1):
        if team[s]:
            continue
        team[s] = 1
        dq = deque([s])
        while dq:
            v = dq.popleft()
            for u in adj[v]:
                if team[u] == 0:
                    team[u] = 3 - team[v]
                    dq.append(u)
                elif team[u] == team[v]:
                    return "-1\n"
    return " ".join(map(str, team[1:])) + "\n"


def bip(rng, n, m, odd_cycle=False):
    side = [rng.randint(1, 2) for _ in range(n + 1)]
    left = [v for v in range(1, n + 1) if side[v] == 1] or [1]
    right = [v for v in range(1, n + 1) if side[v] == 2] or [n]
    edges = set()
    while len(edges) < m:
        u, v = rng.choice(left), rng.choice(right)
        if u != v:
            edges.add((u, v))
    edges = sorted(edges)
    if odd_cycle:
        a, b = rng.sample(left, 2)
        edges.append((a, b))
    rng.shuffle(edges)
    return f"{n} {len(edges)}\n" + "".join(f"{u} {v}\n" for u, v in edges)


def cases(rng):
    yield "3 2\n1 3\n3 2\n"
    yield "1 0\n"
    yield "3 3\n1 2\n2 3\n3 1\n"
    yield "4 3\n1 2\n2 3\n3 4\n"
    yield "5 0\n"
    for n, m, odd in [(10, 12, False), (100, 200, False), (1000, 3000, True), (10**5, 2 * 10**5 - 1, False), (10**5, 10**5, True)]:
        yield bip(rng, n, m, odd)
    n = 10**5
    yield f"{n} {n - 1}\n" + "".join(f"{i} {i + 1}\n" for i in range(1, n))


if __name__ == "__main__":
    main(__file__, cases, solve)
