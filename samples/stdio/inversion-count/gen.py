"""Test generator for inversion-count: small edge cases first, then random and large ones.

Run: python samples/stdio/inversion-count/gen.py [--out DIR]  (or python -m samples.build --only inversion-count)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def count(a):
    # merge sort, returns (sorted, inversions)
    if len(a) <= 1:
        return a, 0
    mid = len(a) // 2
    left, x = count(a[:mid])
    right, y = count(a[mid:])
    merged, inv, i, j = [], x + y, 0, 0
    while i < len(left) and j < len(right):
        if left[i] <= right[j]:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            inv += len(left) - i
            j += 1
    merged += left[i:] + right[j:]
    return merged, inv


def solve(text):
    a = list(map(int, text.split()))[1:]
    return f"{count(a)[1]}\n"


def cases(rng):
    for a in [[1], [2, 1], [1, 2], [3, 3, 3], [2, 4, 1, 3, 5]]:
        yield f"{len(a)}\n" + ints_line(a)
    for n, hi in [(100, 10), (1000, 10**9), (10**4, 100), (2 * 10**5, 10**9)]:
        yield f"{n}\n" + ints_line(rng.randint(1, hi) for _ in range(n))
    yield f"{2 * 10**5}\n" + ints_line(range(2 * 10**5, 0, -1))
    yield f"{2 * 10**5}\n" + ints_line(range(1, 2 * 10**5 + 1))


if __name__ == "__main__":
    main(__file__, cases, solve)
