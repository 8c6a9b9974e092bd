"""AST -> sympy, and the sympy ``Scalars`` used by the worker process.

Runs only inside a worker (see ``pool.py``): sympy can evaluate ``10^{10^{10}}`` or
``(10^{10})!`` eagerly, so this code must be killable.

Numeric policy: two values are equal when ``|a-b| <= 1e-9 * max(|a|, |b|)`` evaluated with
40 significant digits when an input was written as a decimal (an approximation); when both
inputs are exact the tolerance is 1e-25 (evaluation noise only) and rationals compare
exactly. There is no absolute tolerance, so 1e-10 and 2e-10 differ; exact
zero only equals (numerically) zero.
"""

from __future__ import annotations

import functools

import random
from fractions import Fraction

import sympy as sp

from verifier.math.fastnum import terminates
from verifier.math.structure import (MIN_DECIMAL_DIGITS, Outcome, approx_tol, compare, decimal_digits,
                                     decimal_unit, has_decimal)

REL_TOL = sp.Float("1e-9", 40)
FLOAT_NOISE = sp.Float("4e-16", 40)  # two decimals: what printing a double adds (fastnum.py)
EXACT_TOL = sp.Float("1e-25", 40)  # both inputs exact: only evaluation noise is forgiven
_PREC = 40
_N_POINTS = 6

_FUNCS = {
    "sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "cot": sp.cot, "sec": sp.sec, "csc": sp.csc,
    "arcsin": sp.asin, "arccos": sp.acos, "arctan": sp.atan, "sinh": sp.sinh,
    "cosh": sp.cosh, "tanh": sp.tanh, "ln": sp.log, "log": sp.log, "exp": sp.exp,
    "sqrt": sp.sqrt, "binomial": sp.binomial, "floor": sp.floor, "ceiling": sp.ceiling,
    # sympy's gcd(a, b, *gens) reads a third argument as a generator (lcm(4, 6, 7) was 12):
    # fold over every argument instead
    "gcd": lambda *a: functools.reduce(sp.gcd, a), "lcm": lambda *a: functools.reduce(sp.lcm, a),
    "max": sp.Max, "min": sp.Min,
}
_CONSTS = {"pi": sp.pi, "E": sp.E, "I": sp.I, "oo": sp.oo}


def to_sympy(node: list):
    """Build the sympy object for an expression node (not for sets/intervals)."""
    tag = node[0]
    if tag == "num":
        m, e = node[1], node[2]
        return sp.Integer(m) * sp.Integer(10) ** e if e >= 0 else sp.Rational(m, 10 ** (-e))
    if tag == "sym":
        return sp.Symbol(node[1])
    if tag == "const":
        return _CONSTS[node[1]]
    if tag == "neg":
        return -to_sympy(node[1])
    if tag == "add":
        return sp.Add(*[to_sympy(x) for x in node[1]])
    if tag == "mul":
        return sp.Mul(*[to_sympy(x) for x in node[1]])
    if tag == "div":
        return to_sympy(node[1]) / to_sympy(node[2])
    if tag == "pow":
        base, exp = to_sympy(node[1]), to_sympy(node[2])
        if exp == 0 and getattr(base, "is_infinite", False):
            return sp.nan  # \infty^0 is indeterminate (sympy calls it 1: paid for a gold 1)
        return sp.Pow(base, exp)
    if tag == "fact":
        return sp.factorial(to_sympy(node[1]))
    if tag == "pct":
        return to_sympy(node[1]) / 100
    if tag == "abs":
        return sp.Abs(to_sympy(node[1]))
    if tag == "matrix":
        return sp.Matrix([[to_sympy(x) for x in row] for row in node[1]])
    if tag == "func":
        args = [to_sympy(a) for a in node[2]]
        if node[1] == "det":
            return args[0].det() if isinstance(args[0], sp.MatrixBase) else args[0]
        return _FUNCS[node[1]](*args)
    raise ValueError(f"not an expression: {tag}")


def to_set(node: list):
    """Build the sympy set for an interval/union/inequality node."""
    tag = node[0]
    if tag == "interval":
        return sp.Interval(to_sympy(node[1]), to_sympy(node[2]), node[3], node[4])
    if tag == "paren":
        return sp.Interval.open(to_sympy(node[1][0]), to_sympy(node[1][1]))
    if tag == "reals":
        return sp.S.Reals
    if tag == "union":
        return sp.Union(*[to_set(x) for x in node[1]])
    if tag == "set":
        return sp.FiniteSet(*[to_sympy(x) for x in node[1]])
    if tag == "rel":
        exprs = [to_sympy(x) for x in node[1]]
        free = set().union(*(e.free_symbols for e in exprs))
        if len(free) != 1:
            raise ValueError("inequality must have exactly one variable")
        var = free.pop()
        real = sp.Symbol(var.name, real=True)
        exprs = [e.subs(var, real) for e in exprs]
        ops = {"<": sp.Lt, ">": sp.Gt, "<=": sp.Le, ">=": sp.Ge, "!=": sp.Ne}
        result = sp.S.Reals
        for a, op, b in zip(exprs, node[2], exprs[1:]):
            if op == "=":
                raise ValueError("equation inside an inequality chain")
            result = sp.Intersection(result, _simple_rel_set(a, op, b, real)
                                     or ops[op](a, b).as_set())
        return result
    raise ValueError(f"not a set: {tag}")


def _simple_rel_set(a, op: str, b, var):
    """``x < c`` / ``c <= x`` straight to an interval; None when not that simple.
    (``as_set`` solves the general case but costs ~0.3 s.)"""
    if b == var and not a.free_symbols:
        a, b = b, a
        op = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "!=": "!="}[op]
    if a != var or b.free_symbols or not b.is_real:
        return None
    if op == "<":
        return sp.Interval(-sp.oo, b, True, True)
    if op == "<=":
        return sp.Interval(-sp.oo, b, True, False)
    if op == ">":
        return sp.Interval(b, sp.oo, True, True)
    if op == ">=":
        return sp.Interval(b, sp.oo, False, True)
    return sp.Union(sp.Interval(-sp.oo, b, True, True), sp.Interval(b, sp.oo, True, True))


def render(node: list) -> str:
    """Readable sympy form of any node, for the verdict's ``*_parsed`` fields."""
    tag = node[0]
    try:
        if tag in ("interval", "union", "reals", "rel"):
            return str(to_set(node))
        if tag in ("set", "list", "tuple", "paren"):
            br = {"set": "{}", "list": "[]", "tuple": "()", "paren": "()"}[tag]
            return br[0] + ", ".join(render(x) for x in node[1]) + br[1]
        if tag == "eq":
            return f"Eq({to_sympy(node[1])}, {to_sympy(node[2])})"
        if tag == "pm":
            return f"{to_sympy(node[1])} ± {to_sympy(node[2])}"
        return str(to_sympy(node))
    except Exception as exc:  # rendering is informative only
        return f"<unrenderable {tag}: {type(exc).__name__}>"


def _numeric(v):
    """Complex value of a constant expression at _PREC digits, or None if not finite."""
    try:
        z = sp.N(v, _PREC)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    if z.has(sp.oo, -sp.oo, sp.zoo, sp.nan) or not z.is_number:
        return None
    re_, im_ = z.as_real_imag()
    if not (re_.is_Number and im_.is_Number):
        return None
    return sp.Float(re_, _PREC), sp.Float(im_, _PREC)


def _terminating(x) -> bool:
    """Is ``x`` a rational with a finite decimal expansion (5050, 1/8, 3^20000)? Then a decimal
    can state it exactly. ``x`` is size-capped by the parser, so evaluating it is cheap."""
    if x.is_rational is not True:
        return False
    r = x if x.is_Rational else x.doit()
    return bool(r.is_Rational) and terminates(Fraction(int(r.p), int(r.q)))


def _close(u, v, tol) -> bool:
    diff = sp.sqrt((u[0] - v[0]) ** 2 + (u[1] - v[1]) ** 2)
    scale = max(sp.sqrt(u[0] ** 2 + u[1] ** 2), sp.sqrt(v[0] ** 2 + v[1] ** 2))
    return bool(diff <= tol * scale)


# functions that are not analytic: two expressions built with them can agree on any finite
# set of points and differ elsewhere (x + max(1, x-1000) is x+1 for every x < 1001), so
# sampling never proves an identity that contains one; only sympy's algebra does.
_NON_ANALYTIC = (sp.Max, sp.Min, sp.Abs, sp.floor, sp.ceiling, sp.Piecewise, sp.sign,
                 sp.Mod, sp.Heaviside, sp.re, sp.im, sp.arg, sp.conjugate, sp.gcd, sp.lcm)
_SYSRAND = random.SystemRandom()  # sample points a policy cannot know in advance


def _non_analytic(e) -> bool:
    return any(e.has(f) for f in _NON_ANALYTIC)


def is_zero(d) -> bool | None:
    """Is the constant ``d`` exactly zero? None when that cannot be decided.

    No tolerance: ``evalf`` raises its working precision until the result has correct
    RELATIVE digits, so 10^-30 or 10^-100 pi evaluate to themselves (non-zero), while a
    true zero such as sin(3)^2+cos(3)^2-1 comes back as a value with no correct digit."""
    if d == 0:
        return True
    if d.is_Rational:
        return False
    if d.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
        return None
    try:
        z = d.evalf(15, maxn=600)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    if not z.is_number:
        return None
    for part in z.as_real_imag():
        if part == 0:
            continue
        if not part.is_Float:
            return None
        if part._prec >= 20:  # at least 20 correct bits of a non-zero value
            return False
    return True


def _sample_point(syms, rng) -> dict:
    """Exact rationals in [-10, 10]: the difference of two expressions is evaluated exactly
    there. Each denominator is a random prime between 10^6 and 2*10^6, not a small number: a
    term like tan(100! pi x) is zero at every rational whose denominator divides 100!, so with
    small denominators x^2 + tan(100! pi x) passed as x^2 (red-team finding). An integer the
    size guard lets through (at most 100,000 digits) has at most about 20,000 prime factors,
    so the chance that it hides a random prime from this range at all six points is
    about 1e-9."""
    out = {}
    for s in syms:
        q = rng.randrange(10 ** 6 + 1, 2 * 10 ** 6, 2)
        while not sp.isprime(q):
            q += 2
        out[s] = sp.Rational(rng.randint(-10 * q, 10 * q), q)
    return out


_FAR_TOL = sp.Float("1e-20", _PREC)


def _far_scale(*exprs) -> float:
    """How far is far: beyond every number written in the expressions (at least 10^3), so
    sqrt((x-c)^2) vs c-x is probed past c whatever c is."""
    m = 1e3
    for e in exprs:
        for n in e.atoms(sp.Number):
            try:
                m = max(m, abs(float(n)))
            except (TypeError, ValueError, OverflowError):
                continue
    return min(m, 1e100)


def _far_points(syms, rng, scale: float):
    """All variables positive, all negative, then random sign patterns: two expressions that
    agree on one side of every constant (|x-c| = c-x for x < c) are still told apart."""
    n = len(syms)
    patterns = [(1,) * n, (-1,) * n] + [tuple(rng.choice((-1, 1)) for _ in syms) for _ in range(2)]
    for signs in patterns:
        yield {s: sp.Float(sign * scale * 10 ** rng.uniform(1, 9), _PREC) for s, sign in zip(syms, signs)}


def _differ_far(diff_a, diff_b, syms, rng) -> dict | None:
    """A point far from the origin where the two expressions differ, or None.

    Exact rationals there would build huge integers (2^(10^12/7)), so these points are
    floats at 40 digits and only REJECT (relative 1e-20): sqrt((x-1000)^2) agrees with
    1000-x at every small point and is still not 1000-x."""
    for point in _far_points(syms, rng, _far_scale(diff_a, diff_b)):
        try:
            u, v = _numeric(diff_a.subs(point)), _numeric(diff_b.subs(point))
        except (MemoryError, RecursionError):
            raise
        except Exception:  # a point sympy cannot evaluate proves nothing either way
            continue
        if u is not None and v is not None and not _close(u, v, _FAR_TOL):
            return point
    return None


def values_eq(a, b, approx: bool = True, exact=None, *, rel_tol=None, within=None) -> Outcome:
    """Compare two sympy expressions (numbers or with free symbols).

    ``approx``: an input was a decimal, so the 1e-9 relative tolerance applies to constant
    values. Expressions with free symbols never get a tolerance: a different constant
    (x + 10^-30) is a different expression. ``exact``: the side (a or b) written without
    decimals when only the other has them. ``rel_tol`` overrides the relative tolerance;
    ``within``: for a value a decimal can only approximate, the decimal must also be within
    this absolute bound of it (one unit of its last digit), or equal up to float noise."""
    tol = rel_tol if rel_tol is not None else REL_TOL if approx else EXACT_TOL
    if a == b:
        return Outcome(True, "structurally equal")
    if isinstance(a, sp.MatrixBase) or isinstance(b, sp.MatrixBase):
        return Outcome(False, "matrix vs value")
    free = a.free_symbols | b.free_symbols
    if not free:
        if a.has(sp.oo, sp.zoo, sp.nan) or b.has(sp.oo, sp.zoo, sp.nan):
            return Outcome(False, "infinite or undefined values differ")
        u, v = _numeric(a), _numeric(b)
        if u is None or v is None:
            return _symbolic(a, b, "not numerically evaluable")
        if a.is_Rational and b.is_Rational and not approx:
            return Outcome(False, f"exact rationals differ ({a} vs {b})")
        if not approx:  # exact inputs: equal only when the difference is exactly zero
            zero = is_zero(a - b)
            if zero is True:
                return Outcome(True, "numeric equal (exact inputs, difference is zero)")
            if zero is False:
                return Outcome(False, f"numbers differ ({sp.N(a, 12)} vs {sp.N(b, 12)})")
            return _symbolic(a, b, "difference undecidable")
        if _close(u, v, tol):
            if exact is not None and _terminating(exact):
                # The 1e-9 tolerance is for values a decimal can only approximate (1/3,
                # sqrt 2, pi). One written without decimals that a decimal can state
                # exactly needs exactly that value: 5050.000001 is not 5050, 3^20000 + 1.0
                # is not 3^20000 (red-team finding: both were paid).
                if is_zero(a - b) is True:
                    return Outcome(True, "numeric equal (exact: the value has a finite decimal)")
                return Outcome(False, f"numbers differ ({sp.N(a, 12)} vs {sp.N(b, 12)}): an exact "
                               "value a decimal can write needs the exact decimal")
            if within is not None and not _close(u, v, FLOAT_NOISE):
                gap = sp.sqrt((u[0] - v[0]) ** 2 + (u[1] - v[1]) ** 2)
                if not bool(gap <= sp.Rational(within.numerator, within.denominator)):
                    return Outcome(False, f"numbers differ ({sp.N(a, 12)} vs {sp.N(b, 12)}): the "
                                   "decimal's last digits are not the value's")
                return Outcome(True, "numeric equal within rel 1e-9 and one unit of the last digit written")
            return Outcome(True, f"numeric equal within rel {float(tol):g}")
        return Outcome(False, f"numbers differ ({sp.N(a, 12)} vs {sp.N(b, 12)})")
    syms = sorted(free, key=lambda s: s.name)
    diff = a - b
    agreed = 0
    for _ in range(_N_POINTS * 2):
        point = _sample_point(syms, _SYSRAND)
        d = diff.subs(point)
        zero = is_zero(d) if d.is_number else None
        if zero is None:
            continue
        if zero is False:
            where = ", ".join(f"{s}={point[s]}" for s in syms)
            return Outcome(False, f"differ at {where}")
        agreed += 1
        if agreed >= _N_POINTS:
            break
    if sp.expand(diff) == 0 or sp.cancel(diff) == 0:
        return Outcome(True, "symbolic expand/cancel(a-b)==0")
    far = _differ_far(a, b, syms, _SYSRAND)
    if far is not None:
        where = ", ".join(f"{s}={float(far[s]):.6g}" for s in syms)
        return Outcome(False, f"differ at {where}")
    if sp.simplify(diff) == 0:
        return Outcome(True, "symbolic simplify(a-b)==0")
    if _non_analytic(a) or _non_analytic(b):
        return Outcome(False, "max/min/abs/floor/piecewise: sampling proves no identity "
                       "and simplify(a-b)!=0")
    if agreed >= _N_POINTS:
        return Outcome(True, f"difference exactly zero at {agreed} random points")
    return Outcome(False, "symbolic simplify(a-b)!=0")


def _symbolic(a, b, why: str) -> Outcome:
    if sp.simplify(a - b) == 0:
        return Outcome(True, "symbolic simplify(a-b)==0")
    return Outcome(False, f"{why}; simplify(a-b)!=0")


def _infinite(node) -> bool:
    while isinstance(node, list) and node and node[0] == "neg":
        node = node[1]
    return node == ["const", "oo"]


def _closed_at_infinity(node) -> bool:
    """An interval in ``node`` with a closed bracket at an infinite end."""
    if not isinstance(node, list) or not node:
        return False
    if node[0] == "interval":
        return (not node[3] and _infinite(node[1])) or (not node[4] and _infinite(node[2]))
    if node[0] == "union":
        return any(_closed_at_infinity(x) for x in node[1])
    return False


class SympyScalars:
    """Scalars for ``structure.compare`` backed by sympy (worker side)."""

    def __init__(self, approx: bool = False):
        self.approx = approx

    def scalar_eq(self, g: list, p: list) -> Outcome:
        a, b = to_sympy(g), to_sympy(p)
        # Tolerances are for a decimal NUMBER, never for a decimal inside an expression
        # (10.0000000001\pi, 2\sqrt{5.000000001} are the gold's own form with another
        # coefficient: a hostile review's finds). Two decimals: exact up to float noise. One
        # against a value it can only approximate (1/3, sqrt 2, pi): rel 1e-9 and right in
        # every digit written (rounded or cut off there: within one unit of the last).
        ug, up = decimal_unit(g), decimal_unit(p)
        if ug is not None and up is not None:
            out = values_eq(a, b, True, rel_tol=FLOAT_NOISE)
        elif ug is not None or up is not None:
            exact, within = (a, up) if up is not None else (b, ug)
            if decimal_digits(p if up is not None else g) < MIN_DECIMAL_DIGITS:
                within = Fraction(0)  # too few digits to stand for it (float noise aside)
            out = values_eq(a, b, True, exact=exact, within=within)
        else:
            out = values_eq(a, b, False)
        tol = approx_tol(g, p, self.approx)
        if out.equal or tol is None or a.free_symbols:
            return out
        u = _numeric(a)
        bound = sp.Rational(tol.numerator, tol.denominator)
        if u is not None and abs(u[1]) < EXACT_TOL and abs(u[0] - sp.Float(b, _PREC)) <= bound:
            return Outcome(True, f"equal to the precision written (+-{float(tol):g})")
        return out

    def equation_eq(self, g: list, p: list) -> Outcome:
        d1 = to_sympy(g[1]) - to_sympy(g[2])
        d2 = to_sympy(p[1]) - to_sympy(p[2])
        if d1 == 0 or d2 == 0:
            return Outcome(d1 == d2, "degenerate equation")
        ratio = sp.cancel(sp.together(d1 / d2))
        if not ratio.free_symbols and ratio != 0 and ratio.is_finite:
            return Outcome(True, f"equations proportional (factor {ratio})")
        # d1 = c*d2 for the constant c that one random point gives, checked as an identity
        # with no tolerance (values_eq; decimals are exact rationals here). A float tolerance
        # at sample points paid 2x - y + 1 + 10^{-40} = 0 for y = 2x + 1, and a decimal factor
        # 1.0000000001x = 3 for x = 3 (hostile reviews).
        for _ in range(_N_POINTS):
            point = _sample_point(sorted(d1.free_symbols | d2.free_symbols, key=lambda s: s.name),
                                  _SYSRAND)
            den = d2.subs(point)
            if den.is_number and is_zero(den) is False:
                factor = d1.subs(point) / den
                same = values_eq(d1, factor * d2, False)
                return Outcome(same.equal, f"equations proportional ({same.reason})" if same.equal
                               else f"equations not proportional ({same.reason})")
        return Outcome(False, "equations not proportional (no point to compare them at)")

    def region_eq(self, g: list, p: list) -> Outcome:
        if _closed_at_infinity(p) and not _closed_at_infinity(g):
            # [-\infty, 3] is no interval of real numbers (to_set would open that end
            # silently and find (-\infty, 3])
            return Outcome(False, "a closed bracket at an infinite end")
        ps = None
        if p[0] == "union" and p[2:] == ["listed"]:
            # a comma list read as a union must list disjoint pieces: `(-\infty,3), (-\infty,2)`
            # or `(2,\infty), (3,4)` beside the right pieces is a hedge, not a union
            pieces = [to_set(x) for x in p[1]]
            for i, a in enumerate(pieces):
                for b in pieces[i + 1:]:
                    if sp.Intersection(a, b) is not sp.S.EmptySet:
                        return Outcome(False, "several answers that overlap, not a union")
            ps = sp.Union(*pieces)
        gs = to_set(g)
        ps = to_set(p) if ps is None else ps
        if gs is sp.S.EmptySet or ps is sp.S.EmptySet:
            # An interval or inequality with no points is no answer: read as sets, every
            # pair gold (a, b) with a >= b (an empty open interval) matched `[1, 0]` (a
            # review's universal answer). A written empty set is a set, not this path.
            return Outcome(False, "an empty interval or inequality is not an answer")
        if gs == ps:
            return Outcome(True, "sets equal")
        dg, dp = has_decimal(g), has_decimal(p)
        approx = dg or dp
        gi, pi_ = _pieces(gs), _pieces(ps)
        if gi is None or pi_ is None or len(gi) != len(pi_):
            return Outcome(False, f"sets differ ({gs} vs {ps})")
        for a, b in zip(gi, pi_):
            if (a.left_open, a.right_open) != (b.left_open, b.right_open):
                return Outcome(False, f"open/closed ends differ ({a} vs {b})")
            for x, y in ((a.start, b.start), (a.end, b.end)):
                exact = x if dp and not dg else y if dg and not dp else None
                if not values_eq(x, y, approx, exact=exact).equal:
                    return Outcome(False, f"endpoints differ ({a} vs {b})")
        return Outcome(True, "intervals equal within rel 1e-9")


def _pieces(s) -> list | None:
    parts = list(s.args) if isinstance(s, sp.Union) else [s]
    if not all(isinstance(x, sp.Interval) for x in parts):
        return None
    return sorted(parts, key=lambda iv: sp.N(iv.start) if iv.start.is_finite else -sp.oo)


def compare_nodes(gold: list, pred: list, approx: bool = False) -> dict:
    """Worker entry point: the full comparison plus readable parsed forms.

    When sympy raises, blame is assigned by comparing the gold with itself: if that works,
    the prediction is what sympy cannot handle (``x > y`` against an interval), which is a
    wrong answer, not an internal error; otherwise the exception propagates (error)."""
    try:
        out = compare(gold, pred, SympyScalars(approx))
    except (MemoryError, RecursionError):
        raise
    except Exception as exc:
        compare(gold, gold, SympyScalars())  # raises when the gold itself is the problem
        out = Outcome(False, f"prediction not comparable: {type(exc).__name__}: {exc}"[:300])
    return {"equal": out.equal, "reason": out.reason,
            "gold_parsed": render(gold), "prediction_parsed": render(pred)}

