"""In-process fast path: exact rational arithmetic with ``fractions.Fraction``.

Only answers built from decimal literals with + - * / and small integer powers are
decided here (no sympy, no worker round trip). Everything else raises ``NeedsSympy``.
Sizes are capped so that no input can make this path slow: it runs in the caller's
thread, where no timeout can interrupt it.
"""

from __future__ import annotations

from fractions import Fraction

from verifier.math.structure import (MIN_DECIMAL_DIGITS, NeedsSympy, Outcome, approx_tol, decimal_digits,
                                     decimal_unit, has_decimal)

REL_TOL = 1e-9
# Two decimal numbers are equal only when exactly equal, or within what binary doubles add (0.1 + 0.2 prints 0.30000000000000004: 1.5e-16
# relative; two units in the last place of a double are at most 4.4e-16). A hostile review
# had 4.2000000001 paid for 4.2 under the 1e-9 once given to every decimal.
FLOAT_NOISE = 4e-16
_MAX_EXP10 = 400
_MAX_BITS = 2048
_MAX_POW = 64


def to_fraction(node: list) -> Fraction | None:
    """The exact value of ``node`` when it is small rational arithmetic, else None."""
    tag = node[0]
    if tag == "num":
        if abs(node[2]) > _MAX_EXP10 or node[1].bit_length() > _MAX_BITS:
            return None
        return Fraction(node[1]) * Fraction(10) ** node[2]
    if tag == "neg":
        v = to_fraction(node[1])
        return None if v is None else -v
    if tag in ("add", "mul"):
        acc = Fraction(0 if tag == "add" else 1)
        for x in node[1]:
            v = to_fraction(x)
            if v is None:
                return None
            acc = acc + v if tag == "add" else acc * v
            if _too_big(acc):
                return None
        return acc
    if tag == "div":
        a, b = to_fraction(node[1]), to_fraction(node[2])
        if a is None or b is None or b == 0:
            return None
        return a / b
    if tag == "pow":
        a, b = to_fraction(node[1]), to_fraction(node[2])
        if a is None or b is None or b.denominator != 1 or abs(b) > _MAX_POW:
            return None
        if a == 0 and b < 0:
            return None
        r = a ** int(b)
        return None if _too_big(r) else r
    if tag == "pct":
        v = to_fraction(node[1])
        return None if v is None else v / 100
    return None


def _too_big(v: Fraction) -> bool:
    return v.numerator.bit_length() > _MAX_BITS or v.denominator.bit_length() > _MAX_BITS


def rel_close(a: Fraction, b: Fraction, rel_tol: float = REL_TOL) -> bool:
    """|a-b| <= rel_tol*max(|a|,|b|): relative only, so 1e-10 and 2e-10 differ."""
    return abs(a - b) <= Fraction(rel_tol) * max(abs(a), abs(b))


def terminates(v: Fraction) -> bool:
    """Does ``v`` have a finite decimal expansion (denominator 2^a 5^b)? Then a decimal can
    state it exactly, and the 1e-9 tolerance (for 1/3, sqrt 2, pi) does not apply to it."""
    d = v.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def fraction_str(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


class FastScalars:
    """Scalars for ``structure.compare`` that never leave the calling process.
    ``approx``: the prediction was marked approximate (see ``structure.approx_tol``)."""

    def __init__(self, approx: bool = False):
        self.approx = approx

    def scalar_eq(self, g: list, p: list) -> Outcome:
        a, b = to_fraction(g), to_fraction(p)
        if a is None or b is None:
            raise NeedsSympy
        if a == b:
            return Outcome(True, "exact rational equal")
        dg, dp = has_decimal(g), has_decimal(p)
        if decimal_unit(g) is not None and decimal_unit(p) is not None and rel_close(a, b, FLOAT_NOISE):
            return Outcome(True, f"equal up to binary floating-point noise (rel {FLOAT_NOISE:g})")
        if dg != dp and rel_close(a, b):
            exact, written = (b, g) if dg else (a, p)
            if terminates(exact):
                # a decimal can write this value exactly, so one off it is another number
                # (5050.000001 is not 5050; red-team finding: it was paid)
                return Outcome(False, f"numbers differ ({fraction_str(a)} vs {fraction_str(b)}): "
                               "an exact value a decimal can write needs the exact decimal")
            # right in every digit written: rounded or cut off there (one unit of the last)
            unit = decimal_unit(written)
            if unit is not None and decimal_digits(written) >= MIN_DECIMAL_DIGITS and abs(a - b) <= unit:
                return Outcome(True, f"numeric equal within rel {REL_TOL:g} and one unit of the last digit written")
            why = "the decimal's last digits are not the value's"
        else:
            why = ""
        tol = approx_tol(g, p, self.approx)  # a marked approximation: half a unit of its digits
        if tol is not None and abs(a - b) <= tol:
            return Outcome(True, f"equal to the precision written (+-{float(tol):g})")
        return Outcome(False, f"numbers differ ({fraction_str(a)} vs {fraction_str(b)})" + (f": {why}" if why else ""))

    def equation_eq(self, g: list, p: list) -> Outcome:
        raise NeedsSympy

    def region_eq(self, g: list, p: list) -> Outcome:
        raise NeedsSympy
