"""Contestant outputs made by perturbing a jury answer, for differential checker tests.

Every perturbation a checker's reading rules could disagree on: whitespace (including vertical
tab, form feed, lone CR, CRLF, a BOM), number spellings (signs, leading zeros, ``-0``,
int32/int64 overflow, exponent forms, ``nan``/``inf``, hex), extra and missing tokens, case,
line splits and joins, trailing output and empty output. The expected verdict is never
computed here: the reference checker decides it.
"""

from __future__ import annotations

import random
import re

_TOKEN = re.compile(rb"[^ \t\r\n]+")

NUMBER_SPELLINGS = [
    b"+5", b"05", b"-0", b"0", b"00", b"-05", b"--5", b"+-5", b"-", b"+", b"5-",
    b"2147483647", b"2147483648", b"-2147483649",
    b"9223372036854775807", b"9223372036854775808", b"-9223372036854775808",
    b"-9223372036854775809", b"99999999999999999999", b"123456789012345678901",
    b"1e5", b"1E+05", b"1e", b"1e+", b"1e-", b"1.e5", b".5", b"5.", b".", b"-.5", b"+.5",
    b"1e400", b"-1e400", b"1e-400", b"1e+-5", b"1..5", b"nan", b"NaN", b"inf", b"-inf",
    b"infinity", b"0x10", b"1,5", b"\xef\xbc\x95",
]
WORDS = [b"yes", b"YES", b"No", b"nO", b"maybe", b"", b"\x00", b"\xff", b"a\x0bb", b"a\x0cb"]


def tokens(data: bytes) -> list[tuple[int, int]]:
    return [m.span() for m in _TOKEN.finditer(data)]


def _replace_token(data: bytes, i: int, new: bytes) -> bytes:
    spans = tokens(data)
    if not spans:
        return new
    s, e = spans[i % len(spans)]
    return data[:s] + new + data[e:]


def _numeric_respellings(tok: bytes) -> list[bytes]:
    out = [b"+" + tok, b"0" + tok, b"-" + tok, tok + b".0", tok + b"e0", tok + b"e"]
    if tok.startswith(b"-"):
        out += [tok[1:], b"-0" + tok[1:]]
    try:
        v = float(tok)
        out += [repr(v).encode(), f"{v:.3e}".encode(), f"{v * (1 + 1e-5):.12g}".encode(),
                f"{v * (1 + 1e-7):.15g}".encode(), f"{v + 1e-10:.15g}".encode()]
    except ValueError:
        pass
    return out


def variants(answer: bytes, seed: int = 0, random_count: int = 12) -> list[tuple[str, bytes]]:
    """(label, output) pairs derived from one jury answer; labels say what was changed."""
    out: list[tuple[str, bytes]] = [("same", answer)]
    add = lambda label, data: out.append((label, data))  # noqa: E731
    # whitespace
    for name, sep in [("tab", b"\t"), ("two-spaces", b"  "), ("vt", b"\x0b"), ("ff", b"\x0c"),
                      ("crlf", b"\r\n"), ("lone-cr", b"\r"), ("newline", b"\n")]:
        add(f"spaces->{name}", answer.replace(b" ", sep))
        add(f"newlines->{name}", answer.replace(b"\n", sep))
    add("crlf-endings", answer.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    add("no-final-newline", answer.rstrip(b"\n"))
    add("trailing-spaces", answer.replace(b"\n", b"  \n"))
    add("trailing-tab", answer.rstrip(b"\n") + b"\t\n")
    add("trailing-vt", answer.rstrip(b"\n") + b"\x0b\n")
    add("trailing-cr-at-eof", answer.rstrip(b"\n") + b"\r")
    add("leading-blank-line", b"\n" + answer)
    add("leading-space", b" " + answer)
    add("leading-vt", b"\x0b" + answer)
    add("bom", b"\xef\xbb\xbf" + answer)
    add("half-bom", b"\xef\xbb" + answer)
    add("extra-blank-lines", answer + b"\n\n\n")
    # extra, missing and moved tokens, trailing output, empty output
    spans = tokens(answer)
    add("extra-token", answer.rstrip(b"\n") + b" 0\n")
    add("extra-line", answer + b"x\n")
    add("extra-number-line", answer + b"1\n")
    add("extra-word-yes", answer + b"YES\n")
    if spans:
        s, e = spans[-1]
        add("missing-last-token", answer[:s] + answer[e:])
        s, e = spans[0]
        add("missing-first-token", answer[:s] + answer[e:])
        add("duplicated-first-token", answer[:e] + b" " + answer[s:e] + answer[e:])
    add("lines-joined", answer.replace(b"\n", b" ").rstrip() + b"\n")
    add("tokens-split", answer.replace(b" ", b"\n"))
    add("empty", b"")
    add("only-newline", b"\n")
    add("only-blanks", b" \t\r\n")
    add("only-vt", b"\x0b")
    # case
    add("upper", answer.upper())
    add("lower", answer.lower())
    add("swapcase", answer.swapcase())
    # number spellings of the first token, and the first token replaced outright
    if spans:
        s, e = spans[0]
        for i, new in enumerate(_numeric_respellings(answer[s:e])):
            add(f"respell-first-{i}", answer[:s] + new + answer[e:])
    for i, new in enumerate(NUMBER_SPELLINGS + WORDS):
        add(f"first-token={new!r}", _replace_token(answer, 0, new))
    # random compositions of the above, seeded so every run sees the same cases
    rng = random.Random(seed)
    pool = NUMBER_SPELLINGS + WORDS + [b"0", b"1", b"-1", b"YES", b"NO"]
    for k in range(random_count):
        data = answer
        for _ in range(rng.randint(1, 3)):
            op = rng.randrange(6)
            n = max(1, len(tokens(data)))
            if op == 0:
                data = _replace_token(data, rng.randrange(n), rng.choice(pool))
            elif op == 1:
                s, e = tokens(data)[rng.randrange(n)] if tokens(data) else (0, 0)
                reps = _numeric_respellings(data[s:e]) or [b"0"]
                data = data[:s] + rng.choice(reps) + data[e:]
            elif op == 2:
                pos = rng.randint(0, len(data))
                data = data[:pos] + rng.choice([b" ", b"\n", b"\r", b"\t", b"\x0b", b"\x0c", b"\r\n"]) + data[pos:]
            elif op == 3:
                data = data + rng.choice([b" 1", b"\n0\n", b"\nYES", b" x"])
            elif op == 4 and tokens(data):
                s, e = tokens(data)[rng.randrange(n)]
                data = data[:s] + data[e:]
            else:
                data = data.swapcase() if rng.random() < 0.5 else data.replace(b"\n", b" ")
        add(f"random-{k}", data)
    seen: set[bytes] = set()
    unique = []
    for label, data in out:
        if data not in seen:
            seen.add(data)
            unique.append((label, data))
    return unique
