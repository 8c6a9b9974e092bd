"""Test generator for grid-shortest-path: small edge cases first, then random and large ones.

Run: python samples/stdio/grid-shortest-path/gen.py [--out DIR]  (or python -m samples.build --only grid-shortest-path)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

from collections import deque


def solve(text):
    data = text.split()
    h, w = int(data[0]), int(data[1])
    g = data[2:2 + h]
    flat = "".join(g)
    s, t = flat.index("S"), flat.index("T")
    dist = [-1] * (h * w)
    dist[s] = 0
    dq = deque([s])
    while dq:
        v = dq.popleft()
        i, j = divmod(v, w)
        for ni, nj in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)):
            if 0 <= ni < h and 0 <= nj < w:
                u = ni * w + nj
                if dist[u] < 0 and flat[u] != "#":
                    dist[u] = dist[v] + 1
                    dq.append(u)
    return f"{dist[t]}\n"


def grid(rng, h, w, wall):
    cells = [["#" if rng.random() < wall else "." for _ in range(w)] for _ in range(h)]
    a, b = rng.sample(range(h * w), 2)
    cells[a // w][a % w] = "S"
    cells[b // w][b % w] = "T"
    return f"{h} {w}\n" + "\n".join("".join(r) for r in cells) + "\n"


def cases(rng):
    yield "1 2\nST\n"
    yield "1 3\nS#T\n"
    yield "3 3\nS#.\n.#.\n..T\n"
    yield "3 4\nS..#\n.#..\n...T\n"
    yield "2 2\nS.\n.T\n"
    for h, w, wall in [(10, 10, 0.2), (50, 50, 0.3), (100, 100, 0.25), (300, 300, 0.3), (500, 500, 0.2), (500, 500, 0.0)]:
        yield grid(rng, h, w, wall)
    # A long snake corridor: the path visits almost every free cell.
    rows = []
    for i in range(499):
        if i % 2 == 0:
            rows.append("." * 500)
        else:
            rows.append(("#" * 499 + ".") if i % 4 == 1 else ("." + "#" * 499))
    rows[0] = "S" + rows[0][1:]
    rows[-1] = rows[-1][:-1] + "T"
    yield "499 500\n" + "\n".join(rows) + "\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
