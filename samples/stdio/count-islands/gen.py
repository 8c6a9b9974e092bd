"""Test generator for count-islands: small edge cases first, then random and large ones.

Run: python samples/stdio/count-islands/gen.py [--out DIR]  (or python -m samples.build --only count-islands)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    data = text.split()
    h, w = int(data[0]), int(data[1])
    land = [c == "#" for c in "".join(data[2:2 + h])]
    seen = [False] * (h * w)
    count = 0
    for start in range(h * w):
        if land[start] and not seen[start]:
            count += 1
            seen[start] = True
            stack = [start]
            while stack:
                v = stack.pop()
                i, j = divmod(v, w)
                for u, ok in ((v - w, i > 0), (v + w, i < h - 1), (v - 1, j > 0), (v + 1, j < w - 1)):
                    if ok and land[u] and not seen[u]:
                        seen[u] = True
                        stack.append(u)
    return f"{count}\n"


def grid(rng, h, w, p):
    return f"{h} {w}\n" + "\n".join("".join("#" if rng.random() < p else "." for _ in range(w)) for _ in range(h)) + "\n"


def cases(rng):
    yield "1 1\n.\n"
    yield "1 1\n#\n"
    yield "2 2\n#.\n.#\n"
    yield "3 5\n##..#\n#...#\n..#..\n"
    yield "3 3\n###\n#.#\n###\n"
    for h, w, p in [(10, 10, 0.4), (50, 80, 0.5), (200, 200, 0.45), (500, 500, 0.4), (500, 500, 0.6)]:
        yield grid(rng, h, w, p)
    yield "500 500\n" + "\n".join(["#" * 500] * 500) + "\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
