"""Test generator for fizzbuzz: small edge cases first, then random and large ones.

Run: python samples/stdio/fizzbuzz/gen.py [--out DIR]  (or python -m samples.build --only fizzbuzz)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

def solve(text):
    n = int(text)
    out = []
    for i in range(1, n + 1):
        out.append("FizzBuzz" if i % 15 == 0 else "Fizz" if i % 3 == 0 else "Buzz" if i % 5 == 0 else str(i))
    return "\n".join(out) + "\n"


def cases(rng):
    for n in [1, 3, 5, 15, 16, 30]:
        yield f"{n}\n"
    for n in (100, 999, 1000) + tuple(rng.sample(range(17, 900), 3)):
        yield f"{n}\n"


if __name__ == "__main__":
    main(__file__, cases, solve)
