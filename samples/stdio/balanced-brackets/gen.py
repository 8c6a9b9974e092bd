"""Test generator for balanced-brackets: small edge cases first, then random and large ones.

Run: python samples/stdio/balanced-brackets/gen.py [--out DIR]  (or python -m samples.build --only balanced-brackets)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # repo root: runs directly or via samples.build
from samples.genlib import ints_line, main  # noqa: E402,F401

PAIRS = {")": "(", "]": "[", "}": "{"}


def balanced(s):
    st = []
    for c in s:
        if c in "([{":
            st.append(c)
        elif st and st[-1] == PAIRS[c]:
            st.pop()
        else:
            return False
    return not st


def solve(text):
    words = text.split()
    return "\n".join("YES" if balanced(s) else "NO" for s in words[1:]) + "\n"


def gen_balanced(rng, n):
    out, st = [], []
    while len(out) + len(st) < n:
        if st and rng.random() < 0.5:
            out.append({"(": ")", "[": "]", "{": "}"}[st.pop()])
        else:
            c = rng.choice("([{")
            st.append(c)
            out.append(c)
    while st:
        out.append({"(": ")", "[": "]", "{": "}"}[st.pop()])
    return "".join(out)


def batch(rng, t, n):
    items = []
    for _ in range(t):
        s = gen_balanced(rng, n)
        if rng.random() < 0.5:
            i = rng.randrange(len(s))
            s = s[:i] + rng.choice("()[]{}") + s[i + 1:]
        items.append(s)
    return f"{t}\n" + "\n".join(items) + "\n"


def cases(rng):
    yield "1\n)\n"
    yield "1\n()\n"
    yield "2\n(]\n([)]\n"
    yield "4\n([]{})\n([)]\n((\n)(\n"
    yield "3\n{[()]}\n{{{{\n}}\n"
    for t, n in [(10, 10), (100, 50), (1000, 100), (10**4, 90), (1, 10**6 - 2), (10, 10**5 - 2)]:
        yield batch(rng, t, n)


if __name__ == "__main__":
    main(__file__, cases, solve)
