"""Answer form: is the prediction written the way the gold is, not only worth the same?

The judge compares values: for "Factor x^2-9", `x^2 - 9` has the gold's value and so
would be paid, and for "What is 17 x 23?" so would `17 \\times 23` (a review found nine
sample problems a policy could answer by echoing the question). A problem whose answer
form matters sets ``answer_form: as_gold`` (the request field ``form`` on
/v1/math/verify); a prediction equal in value must then also:

* have the gold's outermost operation (a product for a factored gold, a sum for an
  expanded one, a number for a computed one, a percentage, a fraction...); a leading minus
  sign is not an operation here;
* use no operation or function the gold does not use (so `\\sqrt{12}` is not `2\\sqrt{3}`,
  `\\frac{3}{8}` is not `0.375`, and an unevaluated `\\sum` is not `5050`);
* for a gold that is a fraction of two integers, be a fraction in lowest terms;
* leave no arithmetic on numbers undone that the gold does not leave undone: a part made
  of numbers only whose value is rational (`3^2`, `\\sqrt{9}`, `\\frac{4}{2}`, `2\\cdot 3`) or
  two rational terms of one sum or product (`x^2 - 4 - 5`) is an echo of the working, so
  `x^2-3^2` is not `x^2-9` and `2\\sqrt{\\sqrt{9}}` is not `2\\sqrt{3}`, nor a fraction whose
  numerator and denominator keep a common integer factor (`\\frac{6x}{4}`); a gold that
  itself keeps such a part, like `2^{10}`, turns this rule off.

Both answers are read with the judge's own parser; a prediction it cannot parse does not
have the gold's form (unless its normalised text is the gold's).
"""
from __future__ import annotations

import re
from fractions import Fraction
from math import factorial, gcd, isqrt

from verifier.math.latex import ParseError, parse
from verifier.math.normalize import normalize


def _strip_sign(node: list) -> list:
    while node[0] == "neg":
        node = node[1]
    return node


def _kinds(node, out: set) -> set:
    """Every operation in ``node``: node tags (not `neg`), function names."""
    if isinstance(node, list) and node and isinstance(node[0], str):
        tag = node[0]
        if tag == "func":
            out.add("func:" + str(node[1]))
        elif tag != "neg":
            out.add(tag)
        for child in node[1:]:
            _kinds(child, out)
    elif isinstance(node, list):
        for child in node:
            _kinds(child, out)
    return out


def _int(node: list) -> int | None:
    node = _strip_sign(node)
    return node[1] if node[0] == "num" and node[2] == 0 else None


_MAX_BITS = 20_000  # a folded value larger than this is not worked out (and not flagged)


def _children(node: list) -> list:
    out = []
    for item in node[1:]:
        if isinstance(item, list):
            if item and isinstance(item[0], str):
                out.append(item)
            else:
                out.extend(_children(["", *item]))
    return out


def _root(v: Fraction, n: int) -> Fraction | None:
    """The exact n-th root of a non-negative rational, or None."""
    if v < 0 or n < 1:
        return None
    def iroot(k: int) -> int | None:
        r = isqrt(k) if n == 2 else round(k ** (1.0 / n)) if k.bit_length() < 1000 else None
        if r is None:
            return None
        for c in (r - 1, r, r + 1):
            if c >= 0 and c ** n == k:
                return c
        return None
    a, b = iroot(v.numerator), iroot(v.denominator)
    return None if a is None or b is None else Fraction(a, b)


def _power(base: Fraction, exp: Fraction) -> Fraction | None:
    if exp.denominator > 8 or abs(exp.numerator) > 64:
        return None
    if max(base.numerator.bit_length(), base.denominator.bit_length()) * abs(exp.numerator) > _MAX_BITS:
        return None
    if exp.denominator > 1:
        base = _root(base, exp.denominator)
        if base is None:
            return None
    if base == 0 and exp < 0:
        return None
    return base ** exp.numerator


def _combine(node: list, vals: list) -> Fraction | None:
    """The exact rational value of a numbers-only node from its children's, or None."""
    tag = node[0]
    if tag == "num":
        return Fraction(node[1]) * Fraction(10) ** node[2] if abs(node[2]) <= 400 else None
    if not vals or any(v is None for v in vals):
        return None
    if tag == "neg":
        return -vals[0]
    if tag == "add":
        return sum(vals, Fraction(0))
    if tag == "mul":
        out = Fraction(1)
        for v in vals:
            out *= v
            if max(out.numerator.bit_length(), out.denominator.bit_length()) > _MAX_BITS:
                return None
        return out
    if tag == "div":
        return vals[0] / vals[1] if vals[1] != 0 else None
    if tag == "pow":
        return _power(vals[0], vals[1])
    if tag == "func" and node[1] == "sqrt" and len(vals) == 1:
        return _root(vals[0], 2)
    if tag == "abs":
        return abs(vals[0])
    if tag == "pct":
        return vals[0] / 100
    if tag == "fact" and vals[0].denominator == 1 and 0 <= vals[0] <= 100:
        return Fraction(factorial(int(vals[0])))
    return None


def _written_number(node: list) -> bool:
    """A number as one writes it: a literal, a percentage of one, a fraction of two
    integers in lowest terms (any of them negated)."""
    node = _strip_sign(node)
    if node[0] == "num":
        return True
    if node[0] == "pct":
        return _strip_sign(node[1])[0] == "num"
    if node[0] == "div":
        a, b = _int(node[1]), _int(node[2])
        return a is not None and b is not None and b > 1 and gcd(a, b) == 1
    return False


def _undone(node: list) -> tuple[Fraction | None, str | None]:
    """(rational value if ``node`` is made of numbers only, the first arithmetic on numbers
    left undone in it)."""
    kids = _children(node)
    results = [_undone(k) for k in kids]
    for _, found in results:
        if found:
            return None, found
    vals = [v for v, _ in results]
    value = _combine(node, vals)
    what = node[1] if node[0] == "func" else node[0]
    if value is not None and not _written_number(node):
        return None, what
    if node[0] in ("add", "mul") and sum(v is not None for v in vals) >= 2:
        return None, what
    if node[0] == "div" and value is None:
        a, b = _coefficient(node[1]), _coefficient(node[2])
        if a is not None and b is not None and gcd(a, b) > 1:
            return None, "a fraction not in lowest terms"
    # identities: a factor 1 or -1, a term 0, a power 1 (`1\sqrt{12}`, `(x+1)^2+0`, `(-1)(9-x^2)`)
    if node[0] == "mul" and any(v is not None and abs(v) == 1 for v in vals):
        return None, "a factor of 1"
    if node[0] == "add" and any(v == 0 for v in vals):
        return None, "a term of 0"
    if node[0] in ("pow", "div") and vals[1] is not None and vals[1] == 1:
        return None, "a power or divisor of 1"
    # a root not in simplest form: \sqrt{12} (= 2\sqrt{3}), \sqrt[3]{16}
    root = _root_of_integer(node, vals)
    if root is not None and _has_power_factor(*root):
        return None, "a root not in simplest form"
    return value, None


def _root_of_integer(node: list, vals: list) -> tuple[int, int] | None:
    """(radicand, index) of a root of a positive integer (sqrt(n), n^(1/k)), else None."""
    if node[0] == "func" and node[1] == "sqrt" and len(vals) == 1:
        radicand, index = vals[0], 2
    elif node[0] == "pow" and vals[1] is not None and vals[1].numerator == 1 and vals[1].denominator > 1:
        radicand, index = vals[0], vals[1].denominator
    else:
        return None
    if radicand is None or radicand.denominator != 1 or radicand <= 1 or radicand.numerator.bit_length() > 64:
        return None
    return int(radicand), index


def _has_power_factor(n: int, k: int) -> bool:
    """Does n have a factor p**k > 1 (trial division, n < 2**64 and only small p checked)?"""
    p = 2
    while p ** k <= n and p < 10_000:
        if n % (p ** k) == 0:
            return True
        p += 1
    return False


def _coefficient(node: list) -> int | None:
    """The integer written in front of a term (`6` of `6x`), or the integer itself."""
    node = _strip_sign(node)
    if node[0] == "mul":
        ints = [i for i in (_int(f) for f in node[1]) if i is not None]
        return ints[0] if len(ints) == 1 else None
    return _int(node)


def _undone_arithmetic(node: list) -> str | None:
    try:
        return _undone(node)[1]
    except RecursionError:
        return "too deep to read"


def form_matches(gold: str, pred: str) -> tuple[bool, str]:
    """(same form, why not) for two answers already known to be equal in value."""
    if _DECIMAL_RE.search(pred) and not _DECIMAL_RE.search(gold):
        # 0.91\overline{6} for \frac{11}{12}: normalising made it the fraction (third review)
        return False, "a decimal where the answer is not one"
    g_norm, p_norm = normalize(gold), normalize(pred)
    if g_norm == p_norm:
        return True, ""
    try:
        g = _strip_sign(parse(g_norm))
    except ParseError:
        return False, "the gold answer's form cannot be read"
    try:
        p = _strip_sign(parse(p_norm))
    except ParseError:
        return False, "the answer's form cannot be read"
    if g[0] != p[0]:
        return False, f"{p[0]} where the answer is a {g[0]}"
    extra = _kinds(p, set()) - _kinds(g, set())
    if extra:
        return False, "uses " + ", ".join(sorted(x.removeprefix("func:") for x in extra))
    if g[0] == "div" and _int(g[1]) is not None and _int(g[2]) is not None:
        a, b = _int(p[1]), _int(p[2])
        if a is None or b is None or gcd(a, b) != 1:
            return False, "not a fraction in lowest terms"
    if _undone_arithmetic(g) is None:
        undone = _undone_arithmetic(p)
        if undone is not None:
            return False, f"arithmetic on numbers left undone ({undone})"
    if _roots_in_a_product(p) > _roots_in_a_product(g):
        return False, "roots left to combine"  # \sqrt{2}\sqrt{6} for 2\sqrt{3}
    if g[0] == "add" and all(_monomial(t) is not None for t in g[1]):
        # an expanded polynomial: the answer must be one too, like terms combined
        # (x(x+2)+1, x^2+2x^2+2 for 3x^2+2: third review)
        sigs = [_monomial(t) for t in p[1]]
        if any(sig is None for sig in sigs) or len(set(sigs)) != len(sigs) or len(sigs) != len(g[1]):
            return False, "not expanded with like terms combined"
    return True, ""


_DECIMAL_RE = re.compile(r"\d\.\d|\.\d|\\overline|\d\.\(")


def _roots_in_a_product(node) -> int:
    """Most square roots (or n-th roots) multiplied together anywhere in ``node``."""
    if not isinstance(node, list) or not node or not isinstance(node[0], str):
        return 0
    best = 0
    if node[0] == "mul":
        best = sum(1 for f in node[1] if _strip_sign(f)[0] == "func" and _strip_sign(f)[1] == "sqrt"
                   or (_strip_sign(f)[0] == "pow" and _strip_sign(f)[2][0] == "div"))
    return max([best] + [_roots_in_a_product(k) for k in _children(node)])


def _monomial(node) -> tuple | None:
    """The variables and powers of a term that is a number times powers of variables, or None."""
    node = _strip_sign(node)
    factors = node[1] if node[0] == "mul" else [node]
    powers: dict[str, int] = {}
    for f in factors:
        f = _strip_sign(f)
        if f[0] == "num" or (f[0] == "div" and _int(f[1]) is not None and _int(f[2]) is not None):
            continue
        if f[0] == "sym":
            powers[f[1]] = powers.get(f[1], 0) + 1
        elif f[0] == "pow" and f[1][0] == "sym" and _int(f[2]) is not None and _int(f[2]) > 0:
            powers[f[1][1]] = powers.get(f[1][1], 0) + _int(f[2])
        else:
            return None
    return tuple(sorted(powers.items()))
