"""Compare two parsed answers by shape: sets, tuples, intervals, equations, percents.

The shape rules live here once; the scalar arithmetic is delegated to a ``Scalars``
object. ``fastnum.FastScalars`` answers exactly-rational cases in the calling process and
raises ``NeedsSympy`` for anything else; ``sympy_backend.SympyScalars`` (in a worker
process) answers everything.

Policies (see also ``verifier/math/__init__.py``):
* ``x = 3`` matches ``3`` (an equation whose left side is a single variable is its value);
  ``x = 3`` vs ``y = 3`` do not match; other equations match when ``lhs - rhs`` of one is a
  non-zero constant multiple of the other's (``y = 2x+1`` ~ ``2x - y + 1 = 0``).
* ``X%`` matches ``X`` (percent read as a unit) and ``X/100`` (its value).
* sets and bare lists (``1, 2`` / ``x = 1 or x = 2`` / ``a \\pm b``) are unordered and
  match each other; tuples are ordered and never match sets.
* ``(a, b)`` is a point or an open interval: it is an interval only when compared with an
  interval, a union or an inequality.
* a one-row or one-column matrix matches a tuple with the same entries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol


class NeedsSympy(Exception):
    """The in-process fast path cannot decide; the worker must."""


@dataclass(frozen=True)
class Outcome:
    equal: bool
    reason: str


class Scalars(Protocol):
    def scalar_eq(self, g: list, p: list) -> Outcome: ...
    def equation_eq(self, g: list, p: list) -> Outcome: ...
    def region_eq(self, g: list, p: list) -> Outcome: ...


REGION = {"interval", "union", "reals", "rel"}
COLLECTION = {"set", "list"}
TUPLE = {"paren", "tuple"}


def has_decimal(node) -> bool:
    """True when a literal was written as a decimal or in e/10^k notation (an
    approximation), so the relative tolerance applies; exact inputs compare exactly."""
    if isinstance(node, list):
        if node and node[0] == "num":
            return node[2] != 0
        return any(has_decimal(x) for x in node)
    return False


def _int_literal(node) -> int | None:
    if node[0] == "neg":
        v = _int_literal(node[1])
        return None if v is None else -v
    return node[1] if node[0] == "num" and node[2] == 0 else None


# A decimal that is not marked approximate must state at least this many significant digits
# to stand for a value it can only approximate (8 digits of 23 pi, 72.256631, happen to be
# within 1e-9 when the next digits are zeros: an out-of-sample review's find).
MIN_DECIMAL_DIGITS = 10


def decimal_digits(node: list) -> int:
    """Significant digits written in a decimal NUMBER (``0.0250`` -> 3, ``1.6e-19`` -> 2)."""
    node = node[1] if node[0] == "neg" else node
    if node[0] == "mul":
        node = node[1][0]
    return len(str(abs(node[1]))) if node[0] == "num" else 0


def decimal_unit(node: list):
    """The unit of the last written digit of a decimal NUMBER (``-1.50`` -> 1/100, ``1.6e-19``
    and ``1.6 \\times 10^{-19}`` -> 10^-20), or None when ``node`` is not one (no decimal,
    or a decimal inside an expression). A Fraction."""
    from fractions import Fraction

    node = node[1] if node[0] == "neg" else node
    if node[0] == "num":
        return Fraction(10) ** node[2] if node[2] != 0 else None
    if node[0] == "mul" and len(node[1]) == 2:
        head, scale = node[1]
        if head[0] == "num" and head[2] != 0 and scale[0] == "pow" and scale[1] == ["num", 10, 0]:
            k = _int_literal(scale[2])
            if k is not None and abs(k) <= 400:
                return Fraction(10) ** (head[2] + k)
    return None


# 6 significant digits: 3 would let one rounded value match several exact answers (22/7 and
# pi both round to 3.14), so a policy could be paid for the wrong one; with 6 the digits
# determine the value (3.14159 is pi, 3.14286 is 22/7).
MIN_APPROX_DIGITS = 6


def approx_tol(gold: list, pred: list, marked: bool):
    """Half a unit in the last place of a prediction that says it is rounded.

    Applies only when the prediction was marked approximate (``\\approx 3.14``, "about
    3.14", ``≈``: ``marked``), is a bare decimal literal with at least
    ``MIN_APPROX_DIGITS`` significant digits, and the gold is not itself written as a
    decimal (a decimal gold is the exact target: 1.25 != 1.254). So ``\\pi`` ~
    ``\\approx 3.14159`` and 1/3 ~ ``\\approx 0.333333``, but an unmarked 3.14159 is not
    pi, pi is not ``\\approx 3.14`` (too few digits) and 2 is not ``\\approx 1.99999``. A Fraction or None."""
    from fractions import Fraction

    if not marked or has_decimal(gold):
        return None
    node = pred[1] if pred[0] == "neg" else pred
    if node[0] != "num" or node[2] >= 0 or len(str(node[1])) < MIN_APPROX_DIGITS:
        return None
    return Fraction(1, 2) * Fraction(10) ** node[2]


def _is_sym(node: list) -> bool:
    return node[0] == "sym"


def _has_pm(node) -> bool:
    if isinstance(node, list):
        if node and node[0] == "pm":
            return True
        return any(_has_pm(x) for x in node)
    return False


def _sub_pm(node, sign: int):
    if isinstance(node, list):
        if node and node[0] == "pm":
            a, b = _sub_pm(node[1], sign), _sub_pm(node[2], sign)
            return ["add", [a, b if sign > 0 else ["neg", b]]]
        return [_sub_pm(x, sign) for x in node]
    return node


def expand(node: list) -> list:
    """Top-level ``a \\pm b`` becomes two answers; equations put their variable left."""
    if node[0] == "list":
        items: list = []
        for it in node[1]:
            e = expand(it)
            items.extend(e[1] if e[0] == "list" else [e])
        return ["list", items]
    if node[0] in ("set", "tuple", "paren", "matrix", "interval", "union"):
        return node
    if _has_pm(node):
        return ["list", [expand(_sub_pm(node, 1)), expand(_sub_pm(node, -1))]]
    if node[0] == "eq" and _is_sym(node[2]) and not _is_sym(node[1]):
        return ["eq", node[2], node[1]]
    return node


def compare(g: list, p: list, sc: Scalars) -> Outcome:
    """Are gold ``g`` and prediction ``p`` the same answer?"""
    g, p = expand(g), expand(p)
    gk, pk = g[0], p[0]
    if gk == "list" and len(g[1]) == 1:
        return compare(g[1][0], p, sc)
    if pk == "list" and len(p[1]) == 1:
        return compare(g, p[1][0], sc)

    if gk == "eqchain":  # a gold chain states its answer last
        return compare(["eq", g[1][0], g[1][-1]], p, sc)
    if pk == "eqchain":
        target = g[2] if gk == "eq" and _is_sym(g[1]) else g
        if gk == "eq" and _is_sym(g[1]) and _is_sym(p[1][0]) and g[1] != p[1][0]:
            return Outcome(False, f"equations for different variables {g[1][1]} vs {p[1][0][1]}")
        out = None
        for side in (e for e in p[1] if not _is_sym(e)):
            out = compare(target, side, sc)
            if not out.equal:
                return Outcome(False, "a chain of equalities whose sides are not all the answer")
        return _tag(out, "every side of the chain") if out else Outcome(False, "no value in the chain")
    if gk == "eq" and pk == "eq":
        if _is_sym(g[1]) and _is_sym(p[1]):
            if g[1] != p[1]:
                if _symbols(g[2]) or _symbols(p[2]):  # y = x + 5 is also x = y - 5
                    return sc.equation_eq(g, p)
                return Outcome(False, f"equations for different variables {g[1][1]} vs {p[1][1]}")
            return _tag(compare(g[2], p[2], sc), "value of " + g[1][1])
        return sc.equation_eq(g, p)
    if gk == "eq" and _is_sym(g[1]):
        return _tag(compare(g[2], p, sc), "value of " + g[1][1])
    if pk == "eq" and _is_sym(p[1]):
        return _tag(compare(g, p[2], sc), "value of " + p[1][1])
    if pk == "eq" and gk != "eq" and not _symbols(p[1]) and not _symbols(p[2]):
        # a computation and its value, "\binom{8}{2} = 28", "\gcd(231, 273) = 21" (check 7): a
        # chain of two sides, each of which must be the answer (a false one is never paid)
        return compare(g, ["eqchain", [p[1], p[2]]], sc)
    if "eq" in (gk, pk):
        return Outcome(False, "equation vs non-equation")

    if gk == "pct" and pk == "pct":
        return compare(g[1], p[1], sc)
    if gk == "pct" or pk == "pct":
        pct, other = (g, p) if gk == "pct" else (p, g)
        r = compare(pct[1], other, sc) if gk == "pct" else compare(other, pct[1], sc)
        if r.equal:
            return _tag(r, "percent as unit")
        val = ["div", pct[1], ["num", 100, 0]]
        r2 = compare(val, other, sc) if gk == "pct" else compare(other, val, sc)
        return _tag(r2, "percent as value")

    if gk in TUPLE or pk in TUPLE:  # `x = 7, y = -3` against the pair (7, -3)
        named = _named_values(p if gk in TUPLE else g)
        if named is not None:
            g, p = (g, named) if gk in TUPLE else (named, p)
            gk, pk = g[0], p[0]

    if gk in REGION or pk in REGION:
        if gk == "list" and all(x[0] in REGION | TUPLE for x in g[1]):
            g, gk = ["union", g[1]], "union"
        if pk == "list" and all(x[0] in REGION | TUPLE for x in p[1]):
            if gk not in ("union", "list"):
                # `(-inf, 2], (-inf, 1]` against one interval is two answers, not their union
                return Outcome(False, "several regions where the answer is one")
            if any(x[0] == "union" for x in p[1]):
                # `A \cup B or C`, two boxed unions: several answers (their union could be
                # the gold when one holds the other: a hedge)
                return Outcome(False, "several unions where the answer is one")
            p, pk = ["union", p[1], "listed"], "union"
        if {gk, pk} <= REGION | {"paren"}:
            return sc.region_eq(g, p)
        return Outcome(False, f"{_kind(g)} vs {_kind(p)}")

    if gk in COLLECTION or pk in COLLECTION:
        if gk in COLLECTION and pk in COLLECTION:
            return _unordered(g[1], p[1], sc)
        return Outcome(False, f"{_kind(g)} vs {_kind(p)}")

    gv, pv = _as_vector(g), _as_vector(p)
    if gk in TUPLE or pk in TUPLE:
        if gv is None or pv is None:
            return Outcome(False, f"{_kind(g)} vs {_kind(p)}")
        return _ordered(gv, pv, sc, "tuple")
    if gk == "matrix" and pk == "matrix":
        if [len(r) for r in g[1]] != [len(r) for r in p[1]]:
            return Outcome(False, "matrix shapes differ")
        return _ordered([x for r in g[1] for x in r], [x for r in p[1] for x in r], sc, "matrix")
    if gk == "matrix" or pk == "matrix":
        return Outcome(False, f"{_kind(g)} vs {_kind(p)}")
    return sc.scalar_eq(g, p)


def _kind(node: list) -> str:
    return {"paren": "tuple", "list": "list of answers", "rel": "inequality",
            "reals": "interval"}.get(node[0], node[0] if node[0] in REGION | COLLECTION
                                      | TUPLE | {"matrix"} else "value")


def _symbols(node) -> set[str]:
    if isinstance(node, list):
        if len(node) == 2 and node[0] == "sym" and isinstance(node[1], str):
            return {node[1]}
        return set().union(*(_symbols(x) for x in node)) if node else set()
    return set()


def _natural(name: str) -> tuple:
    """Sort key: x_2 before x_10."""
    return tuple(int(t) if t.isdigit() else t for t in re.findall(r"\d+|\D+", name))


def _named_values(node: list) -> list | None:
    """``x = 7, y = -3`` (two or more equations, each a different variable's value, no value
    naming a listed variable) as the tuple of the values in the variables' order (x, y, z;
    a, b, c; x_1, x_2): how a pair, triple, ... is stated by naming its coordinates."""
    if node[0] != "list" or len(node[1]) < 2:
        return None
    pairs = []
    for item in node[1]:
        item = expand(item)
        if item[0] != "eq" or not _is_sym(item[1]):
            return None
        pairs.append((item[1][1], item[2]))
    names = [n for n, _ in pairs]
    if len(set(names)) != len(names) or any(_symbols(v) & set(names) for _, v in pairs):
        return None
    pairs.sort(key=lambda nv: _natural(nv[0]))
    if not _conventional_order([n for n, _ in pairs]):
        return None
    return ["tuple", [v for _, v in pairs]]


def _conventional_order(names: list[str]) -> bool:
    """Names whose sorted order is the order a tuple of them is written in: consecutive
    letters (x, y, z; a, b, c; m, n), (h, k), (r, theta) or one name with indices (x_1, x_2). Other sets have
    no order the judge can know: (n, k), (r, theta), (rho, theta, phi) were once put in
    alphabetical order, so a wrong assignment was paid (a hostile review)."""
    if [n.lstrip("\\") for n in names] in (["h", "k"], ["r", "theta"]):
        return True  # a centre or vertex (h, k); polar coordinates (r, theta)
    if all(len(n) == 1 and n.isascii() and n.isalpha() for n in names):
        return all(ord(b) - ord(a) == 1 for a, b in zip(names, names[1:]))
    bases = {re.sub(r"_\{?\d+\}?$", "", n) for n in names}
    return len(bases) == 1 and all(re.search(r"_\{?\d+\}?$", n) for n in names)


def _as_vector(node: list) -> list | None:
    if node[0] in TUPLE:
        return node[1]
    if node[0] == "matrix":
        rows = node[1]
        if len(rows) == 1:
            return rows[0]
        if all(len(r) == 1 for r in rows):
            return [r[0] for r in rows]
    return None


def _tag(r: Outcome, what: str) -> Outcome:
    return Outcome(r.equal, f"{r.reason} ({what})")


def _ordered(gs: list, ps: list, sc: Scalars, what: str) -> Outcome:
    if len(gs) != len(ps):
        return Outcome(False, f"{what} lengths differ ({len(gs)} vs {len(ps)})")
    for i, (a, b) in enumerate(zip(gs, ps)):
        r = compare(a, b, sc)
        if not r.equal:
            return Outcome(False, f"{what} entry {i}: {r.reason}")
    return Outcome(True, f"{what}: all {len(gs)} entries equal")


def _unordered(gs: list, ps: list, sc: Scalars) -> Outcome:
    if len(gs) != len(ps):
        return Outcome(False, f"different number of answers ({len(gs)} vs {len(ps)})")
    if len(gs) > 30:
        return Outcome(False, "more than 30 answers: not compared")
    cache: dict[tuple[int, int], bool] = {}

    def eq(i: int, j: int) -> bool:
        if (i, j) not in cache:
            cache[(i, j)] = compare(gs[i], ps[j], sc).equal
        return cache[(i, j)]

    match: dict[int, int] = {}  # prediction index -> gold index (augmenting paths)

    def augment(i: int, seen: set[int]) -> bool:
        for j in range(len(ps)):
            if j not in seen and eq(i, j):
                seen.add(j)
                if j not in match or augment(match[j], seen):
                    match[j] = i
                    return True
        return False

    for i in range(len(gs)):
        if not augment(i, set()):
            return Outcome(False, f"answer {i} of gold has no match")
    return Outcome(True, f"unordered: all {len(gs)} answers matched")
