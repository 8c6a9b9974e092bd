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
* for a gold that is a fraction of two integers, be a fraction in lowest terms.

Both answers are read with the judge's own parser; a prediction it cannot parse does not
have the gold's form (unless its normalised text is the gold's).
"""
from __future__ import annotations

from math import gcd

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


def form_matches(gold: str, pred: str) -> tuple[bool, str]:
    """(same form, why not) for two answers already known to be equal in value."""
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
    return True, ""
