"""Reading a contestant's output in work bounded by the jury's answer.

A wrong program can print far more than the answer (up to the output budget, 16x the
answer + 1 MiB): tens of millions of tokens. Splitting all of that into Python objects and
looking at each one held the GIL for 18 s a request (a red team's flood of ``1\\n`` on a
problem with 4 MB answers). The checkers therefore

- turn at most as many output tokens or lines into Python objects as the answer has (+1),
- stop at the first difference,
- and learn what they still need about the rest (is there any, how many tokens) with
  bytes methods that run in C over the buffer without creating objects.
"""

from __future__ import annotations

# Python's bytes.split() whitespace (what our own checkers use).
ASCII_BLANKS = b" \t\n\r\x0b\x0c"
# testlib's blanks: vertical tab and form feed are token characters there.
TESTLIB_BLANKS = b" \t\r\n"


def _mask(blanks: bytes) -> bytes:
    return bytes(0x20 if c in blanks else 0x78 for c in range(256))


_MASKS = {ASCII_BLANKS: _mask(ASCII_BLANKS), TESTLIB_BLANKS: _mask(TESTLIB_BLANKS)}


def count_tokens(data: bytes, blanks: bytes = ASCII_BLANKS) -> int:
    """Number of maximal runs of non-blank bytes, without creating one object per token."""
    if not data:
        return 0
    shape = data.translate(_MASKS[blanks])  # blank -> " ", anything else -> "x"
    return shape.count(b" x") + (shape[:1] == b"x")


def longest_token_over(data: bytes, limit: int, blanks: bytes = TESTLIB_BLANKS) -> bool:
    """Whether some token is longer than ``limit`` bytes (a substring search, in C)."""
    if len(data) <= limit:
        return False
    return b"x" * (limit + 1) in data.translate(_MASKS[blanks])


def split_upto(data: bytes, n: int) -> tuple[list[bytes], int]:
    """The first (at most) ``n`` whitespace-separated tokens and how many follow them."""
    parts = data.split(None, n)
    if len(parts) <= n:
        return parts, 0
    return parts[:n], count_tokens(parts[n])


def split_lines_upto(data: bytes, n: int) -> tuple[list[bytes], bytes]:
    """The first (at most) ``n`` lines (split at LF) and the unsplit rest after them."""
    parts = data.split(b"\n", n)
    if len(parts) <= n:
        return parts, b""
    return parts[:n], parts[n]


def blank_only(data: bytes, blanks: bytes = ASCII_BLANKS) -> bool:
    return not data.translate(None, blanks)


def first_difference(a: bytes, b: bytes) -> int:
    """Index of the first byte where a and b differ (min length if one is a prefix)."""
    n = min(len(a), len(b))
    lo, step = 0, 1 << 16
    while lo < n and a[lo:lo + step] == b[lo:lo + step]:
        lo += step
    for i in range(lo, min(lo + step, n)):
        if a[i] != b[i]:
            return i
    return n
