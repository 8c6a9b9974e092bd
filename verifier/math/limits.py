"""Size guard: refuse answers whose exact value would have millions of digits.

``10^{10^{10^{10}}}`` or ``(10^{100})!`` parse in microseconds but no one can evaluate
them; sending them to a worker only burns the whole time budget before the kill. The
bound below is computed on the AST, in the calling thread, in time linear in its size.

``digits(node)`` is an upper bound on the number of decimal digits needed to write the
exact value (numerator and denominator together) of the numeric parts of ``node``;
symbols count as one digit. Above ``MAX_DIGITS`` the answer is too large: a prediction
is then judged not equivalent (reason ``too_large``), never an internal error.
"""

from __future__ import annotations

import math

MAX_DIGITS = 100_000
_INF = float("inf")


def _value_bound(node) -> float:
    """Upper bound of |value| of ``node``: exact for a literal, 10^digits otherwise."""
    if isinstance(node, list) and node and node[0] == "num" and node[2] >= 0:
        return float(node[1]) * 10.0 ** node[2] if len(str(node[1])) + node[2] < 300 else _INF
    d = digits(node)
    return 10.0 ** d if d < 300 else _INF


def digits(node) -> float:
    """Upper bound on the digits of the exact value of ``node`` (any AST node or list)."""
    if not isinstance(node, list) or not node:
        return 0
    tag = node[0]
    if not isinstance(tag, str):  # a list of nodes (items, matrix rows)
        return sum(digits(x) for x in node)
    if tag == "num":
        return max(1, len(str(node[1]))) + abs(node[2])
    if tag in ("sym", "const", "reals"):
        return 1
    if tag == "pow":
        base, exp = digits(node[1]), _value_bound(node[2])
        return base * max(exp, 1.0)
    if tag == "fact":
        v = _value_bound(node[1])
        return v * math.log10(v) if 10 < v < _INF else (_INF if v == _INF else 8)
    return sum(digits(x) for x in node[1:] if isinstance(x, list))


def too_large(node) -> bool:
    return digits(node) > MAX_DIGITS
