"""Test generator for maze-path: small edge cases first, then random and large ones.

Run: python samples/stdio/maze-path/gen.py [--out DIR]  (or python -m samples.build --only maze-path)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

from collections import deque


def solve(text):
    data = text.split()
    h, w = int(data[0]), int(data[1])
    flat = "".join(data[2:2 + h])
    s, t = flat.index("S"), flat.index("T")
    prev = [-1] * (h * w)
    move = [""] * (h * w)
    prev[s] = s
    dq = deque([s])
    while dq and prev[t] < 0:
        v = dq.popleft()
        i, j = divmod(v, w)
        for ch, ni, nj in (("U", i - 1, j), ("D", i + 1, j), ("L", i, j - 1), ("R", i, j + 1)):
            if 0 <= ni < h and 0 <= nj < w:
                u = ni * w + nj
                if prev[u] < 0 and flat[u] != "#":
                    prev[u], move[u] = v, ch
                    dq.append(u)
    if prev[t] < 0:
        return "-1\n"
    path, v = [], t
    while v != s:
        path.append(move[v])
        v = prev[v]
    return f"{len(path)}\n{''.join(reversed(path))}\n"


def grid(rng, h, w, wall):
    cells = [["#" if rng.random() < wall else "." for _ in range(w)] for _ in range(h)]
    a, b = rng.sample(range(h * w), 2)
    cells[a // w][a % w] = "S"
    cells[b // w][b % w] = "T"
    return f"{h} {w}\n" + "\n".join("".join(r) for r in cells) + "\n"


def cases(rng):
    yield "1 2\nST\n"
    yield "1 3\nS#T\n"
    yield "3 4\nS..#\n.#..\n...T\n"
    yield "5 5\nS....\n.....\n.....\n.....\n....T\n"
    yield "2 2\nS#\n#T\n"
    for h, w, wall in [(10, 10, 0.2), (30, 40, 0.3), (100, 100, 0.25), (300, 300, 0.3), (300, 300, 0.0)]:
        yield grid(rng, h, w, wall)


if __name__ == "__main__":
    main(__file__, cases, solve)
