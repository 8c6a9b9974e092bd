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

from problem_store.manifest import BuiltinChecker
from verifier.checkers import stock

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
    for i, (a, b) in enumerate(zip(output, answer)):
        if a != b:
            return CheckOutcome("WA", f"first difference at byte {i}")
    return CheckOutcome("WA", f"output has {len(output)} bytes, answer {len(answer)}")


def _lines(data: bytes) -> list[bytes]:
    lines = [ln.rstrip() for ln in data.replace(b"\r\n", b"\n").split(b"\n")]
    while lines and lines[-1] == b"":
        lines.pop()
    return lines


def check_lines(output: bytes, answer: bytes, spec: BuiltinChecker) -> CheckOutcome:
    out, ans = _lines(output), _lines(answer)
    for i, (o, a) in enumerate(zip(out, ans)):
        if (o if spec.case_sensitive else o.lower()) != (a if spec.case_sensitive else a.lower()):
            return CheckOutcome("WA", f"line {i + 1} differs: expected '{_show(a)}', found '{_show(o)}'")
    if len(out) != len(ans):
        return CheckOutcome("WA", f"expected {len(ans)} lines, found {len(out)}")
    return CheckOutcome("AC", f"{len(ans)} lines")


def check_tokens(output: bytes, answer: bytes, spec: BuiltinChecker) -> CheckOutcome:
    out, ans = output.split(), answer.split()
    fo, fa = _fold(out, spec.case_sensitive), _fold(ans, spec.case_sensitive)
    for i, (o, a) in enumerate(zip(fo, fa)):
        if o != a:
            return CheckOutcome("WA", f"{_ordinal(i)} words differ - expected: '{_show(ans[i])}', "
                                      f"found: '{_show(out[i])}'")
    if len(out) < len(ans):
        return CheckOutcome("WA", f"answer contains longer sequence [length = {len(ans)}], "
                                  f"but output contains {len(out)} elements")
    if len(out) > len(ans):
        return CheckOutcome("WA", f"participant output contains extra tokens ({len(out) - len(ans)})")
    return CheckOutcome("AC", f"{len(ans)} tokens")


def _int_key(token: bytes) -> tuple[bool, bytes]:
    """An integer token's value as (negative, digits without leading zeros): what int()
    compares, without int()'s limit of 4,300 digits (a longer token raised ValueError)
    and in linear time."""
    negative = token[:1] == b"-"
    digits = token.lstrip(b"+-").lstrip(b"0")
    return (negative and digits != b"", digits)


def check_integers(output: bytes, answer: bytes, spec: BuiltinChecker) -> CheckOutcome:
    ans = answer.split()
    for i, a in enumerate(ans):
        if not _INT_RE.match(a):
            return CheckOutcome("IE", f"jury answer: {_ordinal(i)} token '{_show(a)}' is not an integer")
    out = output.split()
    for i, o in enumerate(out):
        if not _INT_RE.match(o):
            return CheckOutcome("PE", f"expected an integer, found '{_show(o)}' ({_ordinal(i)} token)")
    for i, (o, a) in enumerate(zip(out, ans)):
        if _int_key(o) != _int_key(a):
            return CheckOutcome("WA", f"{_ordinal(i)} numbers differ - expected: '{_show(a)}', "
                                      f"found: '{_show(o)}'")
    if len(out) != len(ans):
        return CheckOutcome("WA", f"expected {len(ans)} numbers, found {len(out)}")
    return CheckOutcome("AC", f"{len(ans)} numbers")


def check_unordered(output: bytes, answer: bytes, spec: BuiltinChecker) -> CheckOutcome:
    out = Counter(_fold(output.split(), spec.case_sensitive))
    ans = Counter(_fold(answer.split(), spec.case_sensitive))
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
    ans = answer.split()
    for i, a in enumerate(ans):
        if not _FLOAT_RE.match(a):
            return CheckOutcome("IE", f"jury answer: {_ordinal(i)} token '{_show(a)}' is not a number")
    out = output.split()
    for i, o in enumerate(out):
        if not _FLOAT_RE.match(o):
            return CheckOutcome("PE", f"expected a number, found '{_show(o)}' ({_ordinal(i)} token)")
    for i, (o, a) in enumerate(zip(out, ans)):
        if not floats_equal(float(a), float(o), spec.abs_tol, spec.rel_tol):
            return CheckOutcome("WA", f"{_ordinal(i)} numbers differ - expected: '{_show(a)}', "
                                      f"found: '{_show(o)}' (abs_tol {spec.abs_tol:g}, "
                                      f"rel_tol {spec.rel_tol:g})")
    if len(out) != len(ans):
        return CheckOutcome("WA", f"expected {len(ans)} numbers, found {len(out)}")
    return CheckOutcome("AC", f"{len(ans)} numbers")


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
