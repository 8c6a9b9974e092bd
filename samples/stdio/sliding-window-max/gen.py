"""Test generator for sliding-window-max: small edge cases first, then random and large ones.

Run: python samples/stdio/sliding-window-max/gen.py [--out DIR]  (or python -m samples.build --only sliding-window-max)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

from collections import deque


def solve(text):
    data = list(map(int, text.split()))
    n, k = data[0], data[1]
    a = data[2:2 + n]
    dq, out = deque(), []
    for i, x in enumerate(a):
        while dq and a[dq[-1]] <= x:
            dq.pop()
        dq.append(i)
        if dq[0] <= i - k:
            dq.popleft()
        if i >= k - 1:
            out.append(a[dq[0]])
    return " ".join(map(str, out)) + "\n"


def cases(rng):
    for k, a in [(1, [5]), (1, [3, 1, 2]), (3, [3, 2, 1]), (3, [1, 3, -1, -3, 5, 3, 6, 7]), (2, [-1, -1, -1])]:
        yield f"{len(a)} {k}\n" + ints_line(a)
    for n, k in [(100, 10), (1000, 1000), (10**4, 50), (2 * 10**5, 10**5), (2 * 10**5, 3)]:
        yield f"{n} {k}\n" + ints_line(rng.randint(-10**9, 10**9) for _ in range(n))
    yield f"{2 * 10**5} {10**5}\n" + ints_line(range(2 * 10**5, 0, -1))


if __name__ == "__main__":
    main(__file__, cases, solve)
