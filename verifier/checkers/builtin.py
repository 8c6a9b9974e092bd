"""Built-in comparators, run in the verifier process on bytes (no decoding).

Two families (the semantics table is in docs/problem-format.md):

- testlib's stock checkers by their own names (``wcmp``, ``ncmp``, ``lcmp``, ``fcmp``, ``yesno``,
  ``nyesno``, ``icmp``, ``hcmp``, ``rcmp4``/``rcmp6``/``rcmp9``, ``dcmp``): exactly testlib's
  verdicts (verifier/checkers/stock.py); a Polygon ``std::`` checker maps to these.
- our own (``exact``, ``lines``, ``tokens``, ``integers``, ``unordered``, ``floats``), for the
  own format. They are not testlib's and say so where they differ.

The answer file is the jury's: if *it* is malformed the result is IE (testlib's FAIL), never a
verdict on the contestant.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Callable

from problem_store.manifest import BuiltinChecker
from verifier.checkers import stock
from verifier.checkers.bounded import (blank_only, count_tokens, first_difference, split_lines_upto,
                                       split_upto)

_INT_RE = re.compile(rb"^[+-]?\d+$")
# Every quantifier is possessive and no two of them can match the same characters, so a
# token is matched in one pass: a long digit run that ends in a stray character costs
# linear time, not the quadratic backtracking of "\d+\.?\d*" (a submission controls the
# tokens, and this runs on the service's event loop).
_FLOAT_RE = re.compile(rb"^[+-]?+(?:\d++(?:\.\d*+)?+(?:[eE][+-]?+\d++)?+|\.\d++(?:[eE][+-]?+\d++)?+"
                       rb"|nan|inf|infinity)$", re.IGNORECASE)
_MAX_SHOWN = 32


@dataclass(frozen=True)
class CheckOutcome:
    verdict: str  # "AC" | "WA" | "PE" | "IE"
    message: str = ""
    points: float | None = None  # points a custom checker awarded (testlib quitp: absolute)


def _show(token: bytes) -> str:
    text = token.decode("utf-8", "replace")
    return text if len(text) <= _MAX_SHOWN else text[:_MAX_SHOWN] + "..."


def _ordinal(i: int) -> str:
    n = i + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _fold(tokens: list[bytes], case_sensitive: bool) -> list[bytes]:
    return tokens if case_sensitive else [t.lower() for t in tokens]


def check_exact(output: bytes, answer: bytes, spec: BuiltinChecker) -> CheckOutcome:
    if output == answer:
        return CheckOutcome("AC", f"{len(output)} bytes")
    i = first_difference(output, answer)
    if i < min(len(output), len(answer)):
        return CheckOutcome("WA", f"first difference at byte {i}")
    return CheckOutcome("WA", f"output has {len(output)} bytes, answer {len(answer)}")


def _lines(data: bytes) -> list[bytes]:
    lines = [ln.rstrip() for ln in data.split(b"\n")]  # rstrip also drops a CRLF's CR
    while lines and lines[-1] == b"":
        lines.pop()
    return lines


def check_lines(output: bytes, answer: bytes, spec: BuiltinChecker) -> CheckOutcome:
    ans = _lines(answer)
    parts, rest = split_lines_upto(output, len(ans))
    out = [ln.rstrip() for ln in parts]
    if blank_only(rest):
        while out and out[-1] == b"":
            out.pop()
        found = len(out)
    else:  # lines beyond the answer's: counted, not split
        found = len(out) + rest.rstrip().count(b"\n") + 1
    for i, (o, a) in enumerate(zip(out, ans)):
        if (o if spec.case_sensitive else o.lower()) != (a if spec.case_sensitive else a.lower()):
            return CheckOutcome("WA", f"line {i + 1} differs: expected '{_show(a)}', found '{_show(o)}'")
    if found != len(ans):
        return CheckOutcome("WA", f"expected {len(ans)} lines, found {found}")
    return CheckOutcome("AC", f"{len(ans)} lines")


def check_tokens(output: bytes, answer: bytes, spec: BuiltinChecker) -> CheckOutcome:
    ans = answer.split()
    out, extra = split_upto(output, len(ans))
    for i, (o, a) in enumerate(zip(out, ans)):
        if o != a and (spec.case_sensitive or o.lower() != a.lower()):
            return CheckOutcome("WA", f"{_ordinal(i)} words differ - expected: '{_show(a)}', "
                                      f"found: '{_show(o)}'")
    if len(out) < len(ans):
        return CheckOutcome("WA", f"answer contains longer sequence [length = {len(ans)}], "
                                  f"but output contains {len(out)} elements")
    if extra:
        return CheckOutcome("WA", f"participant output contains extra tokens ({extra})")
    return CheckOutcome("AC", f"{len(ans)} tokens")


def _int_key(token: bytes) -> tuple[bool, bytes]:
    """An integer token's value as (negative, digits without leading zeros): what int()
    compares, without int()'s limit of 4,300 digits (a longer token raised ValueError)
    and in linear time."""
    negative = token[:1] == b"-"
    digits = token.lstrip(b"+-").lstrip(b"0")
    return (negative and digits != b"", digits)


def _numbers(output: bytes, answer: bytes, pattern: re.Pattern, what: str,
             same: Callable[[bytes, bytes], bool], reflexive: bool) -> CheckOutcome:
    """Shared walk of ``integers`` and ``floats``: the jury's tokens are all validated; the
    output is read pair by pair and the first token that differs decides (PE if it is not a
    number at all, WA if it is another number); extra tokens are counted, not read.
    ``reflexive``: a token equal byte for byte to the jury's is the same number (not so for
    floats, where NaN equals nothing)."""
    ans = answer.split()
    for i, a in enumerate(ans):
        if not pattern.match(a):
            return CheckOutcome("IE", f"jury answer: {_ordinal(i)} token '{_show(a)}' is not {what}")
    out, extra = split_upto(output, len(ans))
    for i, (o, a) in enumerate(zip(out, ans)):
        if reflexive and o == a:
            continue
        if not pattern.match(o):
            return CheckOutcome("PE", f"expected {what}, found '{_show(o)}' ({_ordinal(i)} token)")
        if not same(a, o):
            return CheckOutcome("WA", f"{_ordinal(i)} numbers differ - expected: '{_show(a)}', "
                                      f"found: '{_show(o)}'")
    if len(out) < len(ans) or extra:
        return CheckOutcome("WA", f"expected {len(ans)} numbers, found {len(out) + extra}")
    return CheckOutcome("AC", f"{len(ans)} numbers")


def check_integers(output: bytes, answer: bytes, spec: BuiltinChecker) -> CheckOutcome:
    return _numbers(output, answer, _INT_RE, "an integer",
                    lambda a, o: _int_key(o) == _int_key(a), reflexive=True)


def check_unordered(output: bytes, answer: bytes, spec: BuiltinChecker) -> CheckOutcome:
    ans_tokens = answer.split()
    found = count_tokens(output)
    if found > len(ans_tokens):  # counted in C: never a Counter over a flood of tokens
        return CheckOutcome("WA", f"expected {len(ans_tokens)} tokens (any order), found {found}")
    out = Counter(_fold(output.split(), spec.case_sensitive))
    ans = Counter(_fold(ans_tokens, spec.case_sensitive))
    if out == ans:
        return CheckOutcome("AC", f"{sum(ans.values())} tokens (any order)")
    missing, extra = ans - out, out - ans
    parts = []
    if missing:
        parts.append(f"missing '{_show(next(iter(missing)))}'")
    if extra:
        parts.append(f"unexpected '{_show(next(iter(extra)))}'")
    return CheckOutcome("WA", "token multisets differ: " + ", ".join(parts))


def floats_equal(expected: float, found: float, abs_tol: float, rel_tol: float) -> bool:
    """testlib doubleCompare, except that NaN is never equal (not even to NaN)."""
    if math.isnan(expected) or math.isnan(found):
        return False
    if math.isinf(expected) or math.isinf(found):
        return expected == found
    diff = abs(found - expected)
    return diff <= abs_tol + 1e-15 or diff <= rel_tol * abs(expected) + 1e-15


def check_floats(output: bytes, answer: bytes, spec: BuiltinChecker) -> CheckOutcome:
    def same(a: bytes, o: bytes) -> bool:
        return floats_equal(float(a), float(o), spec.abs_tol, spec.rel_tol)

    outcome = _numbers(output, answer, _FLOAT_RE, "a number", same, reflexive=False)
    if outcome.verdict == "WA" and "numbers differ" in outcome.message:
        return CheckOutcome("WA", f"{outcome.message} (abs_tol {spec.abs_tol:g}, "
                                  f"rel_tol {spec.rel_tol:g})")
    return outcome


_CHECKERS = {
    "exact": check_exact,
    "lines": check_lines,
    "tokens": check_tokens,
    "integers": check_integers,
    "unordered": check_unordered,
    "floats": check_floats,
}


def check_builtin(spec: BuiltinChecker, output: bytes, answer: bytes) -> CheckOutcome:
    """Judge one output against the jury answer with the named comparator."""
    if spec.name in stock.STOCK:
        verdict, message = stock.judge(spec.name, output, answer)
        return CheckOutcome(verdict, message)
    return _CHECKERS[spec.name](output, answer, spec)
