"""The math sample set: well-formed JSONL, varied answer forms, and every gold answer
re-derived independently with sympy (a wrong gold answer would poison RL rewards)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import sympy as sp
from sympy.parsing.sympy_parser import (implicit_multiplication_application, parse_expr,
                                        standard_transformations)

MATH = Path(__file__).resolve().parents[2] / "samples" / "math"
x = sp.Symbol("x", real=True)
a, b, k = sp.symbols("a b k")


def load(name: str) -> list[dict]:
    return [json.loads(line) for line in (MATH / name).read_text().splitlines() if line.strip()]


ROWS = {r["id"]: r for name in ("train.jsonl", "heldout.jsonl") for r in load(name)}


def latex_to_sympy(s: str) -> sp.Expr:
    """Enough LaTeX for the gold answers of this set: frac, sqrt, pi, infty, powers."""
    s = s.replace("\\dfrac", "\\frac")
    frac = re.compile(r"\\frac\{([^{}]*)\}\{([^{}]*)\}")
    root = re.compile(r"\\sqrt\{([^{}]*)\}")
    prev = None
    while prev != s:
        prev = s
        s = root.sub(r"sqrt(\1)", s)
        s = frac.sub(r"((\1)/(\2))", s)
    s = s.replace("\\pi", " pi ").replace("\\infty", "oo").replace("^", "**").replace("\\cdot", "*")
    assert "\\" not in s, f"unhandled LaTeX in {s!r}"
    return parse_expr(s, transformations=standard_transformations + (implicit_multiplication_application,),
                      local_dict={"x": x, "pi": sp.pi, "oo": sp.oo, "i": sp.I})


def parse_gold(kind: str, ans: str):
    ans = ans.strip()
    if kind == "gsm":
        return sp.Integer(ans.rsplit("####", 1)[1].strip())
    if kind == "percent":
        assert ans.endswith("\\%"), ans
        return latex_to_sympy(ans[:-2])
    if kind == "interval":
        m = re.fullmatch(r"([\[(])(.+),(.+)([\])])", ans)
        assert m, ans
        return sp.Interval(latex_to_sympy(m[2]), latex_to_sympy(m[3]), m[1] == "(", m[4] == ")")
    if kind == "tuple":
        assert ans.startswith("(") and ans.endswith(")"), ans
        return tuple(latex_to_sympy(p) for p in ans[1:-1].split(","))
    if kind == "set":
        assert ans.startswith("\\{") and ans.endswith("\\}"), ans
        return sp.FiniteSet(*(latex_to_sympy(p) for p in ans[2:-2].split(",")))
    if kind == "decimal":
        assert re.fullmatch(r"-?\d+\.\d+", ans), ans
        return sp.Rational(ans)
    return latex_to_sympy(ans)


def _vertex():
    f = x**2 - 4 * x + 7
    h = sp.solve(sp.diff(f, x), x)[0]
    return (h, f.subs(x, h))


def _median(vals):
    s = sorted(vals)
    return sp.Rational(s[len(s) // 2 - 1] + s[len(s) // 2], 2)


# id -> (answer kind, independent computation of the answer)
EXPECTED = {
    "m-int-product": ("num", lambda: sp.Integer(17) * 23),
    "m-divisor-sum": ("num", lambda: sp.divisor_sigma(36)),
    "m-fraction-sum": ("num", lambda: sp.Rational(1, 2) + sp.Rational(1, 3) + sp.Rational(1, 12)),
    "m-dice-seven": ("num", lambda: sp.Rational(sum(1 for i in range(1, 7) for j in range(1, 7) if i + j == 7), 36)),
    "m-sqrt-twelve": ("num", lambda: sp.sqrt(12)),
    "m-hypotenuse": ("num", lambda: sp.sqrt(2**2 + 4**2)),
    "m-circle-area-pi": ("num", lambda: sp.pi * 3**2),
    "m-circumference": ("num", lambda: sp.pi * 10),
    "m-quadratic-inequality": ("interval", lambda: sp.solve_univariate_inequality(x**2 - 4 * x + 3 < 0, x, relational=False)),
    "m-linear-inequality": ("interval", lambda: sp.solve_univariate_inequality(2 * x - 1 <= 3, x, relational=False)),
    "m-domain-half-open": ("interval", lambda: sp.Intersection(
        sp.solve_univariate_inequality(x - 1 >= 0, x, relational=False),
        sp.solve_univariate_inequality(3 - x > 0, x, relational=False))),
    "m-system-point": ("tuple", lambda: (lambda s: (s[a], s[b]))(sp.solve([a + b - 3, a - b + 1], [a, b]))),
    "m-midpoint": ("tuple", lambda: (sp.Rational(2 + 6, 2), sp.Rational(-4 + 8, 2))),
    "m-quadratic-roots-set": ("set", lambda: sp.solveset(x**2 - 5 * x + 6, x, sp.S.Reals)),
    "m-cubic-roots-set": ("set", lambda: sp.solveset(x**3 - x, x, sp.S.Reals)),
    "m-expand-square": ("expr", lambda: sp.expand((x + 1) ** 2)),
    "m-derivative-poly": ("expr", lambda: sp.diff(x**3 + 2 * x, x)),
    "m-simplify-rational": ("expr", lambda: sp.cancel((x**2 - 1) / (x - 1))),
    "m-decimal-product": ("decimal", lambda: sp.Rational("3.5") * sp.Rational("1.2")),
    "m-three-eighths": ("decimal", lambda: sp.Rational(3, 8)),
    "m-percent-of": ("percent", lambda: sp.Rational(20, 80) * 100),
    "m-percent-increase": ("percent", lambda: sp.Rational(60 - 50, 50) * 100),
    "m-line-up": ("num", lambda: sp.factorial(5)),
    "m-subsets-of-three": ("num", lambda: sp.binomial(10, 3)),
    "m-power-mod": ("num", lambda: sp.Integer(2) ** 100 % 7),
    "m-gauss-sum": ("num", lambda: sp.summation(k, (k, 1, 100))),
    "m-linear-equation": ("num", lambda: sp.solve(3 * x + 2 - 7, x)[0]),
    "m-slope": ("num", lambda: sp.Rational(-3 - 2, 4 - 1)),
    "m-diagonal-distance": ("num", lambda: sp.sqrt(2**2 + 2**2)),
    "m-factor-difference": ("expr", lambda: sp.factor(x**2 - 9)),
    "m-gcd-pair": ("num", lambda: sp.gcd(84, 126)),
    "m-lcm-triple": ("num", lambda: sp.ilcm(4, 6, 10)),
    "m-integral-square": ("num", lambda: sp.integrate(x**2, (x, 0, 1))),
    "m-integral-pi": ("num", lambda: sp.integrate(4 / (1 + x**2), (x, 0, 1))),
    "m-sin-sixty": ("num", lambda: sp.sin(sp.pi / 3)),
    "m-log-two": ("num", lambda: sp.log(1024, 2)),
    "m-complex-square": ("num", lambda: sp.expand((1 + sp.I) ** 2)),
    "m-range-parabola": ("interval", lambda: sp.calculus.util.function_range(x**2 + 1, x, sp.S.Reals)),
    "m-absolute-value-set": ("set", lambda: sp.solveset(sp.Abs(x - 2) - 3, x, sp.S.Reals)),
    "m-median-decimal": ("decimal", lambda: _median([3, 1, 4, 1, 5, 9])),
    "m-decimal-to-percent": ("percent", lambda: sp.Rational("0.45") * 100),
    "m-vertex": ("tuple", _vertex),
    "m-gsm-cookies": ("gsm", lambda: sp.Integer(12 * 24 - 200)),
    "m-gsm-pencils": ("gsm", lambda: sp.Integer(3 * 15 - 7 * 4)),
    "m-gsm-train": ("gsm", lambda: sp.Rational("60") * sp.Rational("2.5") + 80 * sp.Rational("1.5")),
    "m-gsm-wages": ("gsm", lambda: sp.Integer(15 * 8 * 5 - 250)),
    "m-gsm-discount": ("gsm", lambda: sp.Rational(40) * sp.Rational(3, 4) * sp.Rational(11, 10)),
}


def _equal(kind: str, gold, want) -> bool:
    if kind == "tuple":
        return len(gold) == len(want) and all(sp.simplify(g - w) == 0 for g, w in zip(gold, want))
    if kind in ("set", "interval"):
        return gold == want
    return sp.simplify(gold - want) == 0


def test_jsonl_shape_and_size():
    train, held = load("train.jsonl"), load("heldout.jsonl")
    assert len(train) + len(held) >= 40
    assert 0.2 <= len(held) / (len(train) + len(held)) <= 0.3
    ids = [r["id"] for r in train + held]
    assert len(ids) == len(set(ids)), "duplicate ids"
    for r in train + held:
        assert set(r) - {"answer_form"} == {"id", "question", "answer"}, r
        assert r.get("answer_form", "value") in ("value", "as_gold"), r
        assert r["question"].strip() and r["answer"].strip()


def test_every_problem_has_an_independent_check():
    assert set(EXPECTED) == set(ROWS)


def test_answer_forms_are_varied():
    kinds = [kind for kind, _ in EXPECTED.values()]
    for kind in ("num", "interval", "tuple", "set", "expr", "decimal", "percent", "gsm"):
        assert kinds.count(kind) >= 2, kind
    answers = [r["answer"] for r in ROWS.values()]
    for marker in ("\\frac", "\\sqrt", "\\pi", "\\infty", "\\{", "\\%", "####"):
        assert any(marker in s for s in answers), marker


@pytest.mark.parametrize("pid", sorted(EXPECTED))
def test_gold_answer_checks_out_with_sympy(pid):
    kind, compute = EXPECTED[pid]
    gold = parse_gold(kind, ROWS[pid]["answer"])
    want = compute()
    assert _equal(kind, gold, want), f"{pid}: gold {ROWS[pid]['answer']!r} != computed {want}"


@pytest.mark.parametrize("pid", sorted(p for p, (kind, _) in EXPECTED.items() if kind == "gsm"))
def test_gsm_worked_solution_arithmetic(pid):
    """Each <<expr=value>> step of a GSM8K-style solution is itself correct."""
    steps = re.findall(r"<<([^=<>]+)=([^<>]+)>>", ROWS[pid]["answer"])
    assert steps
    for expr, value in steps:
        assert sp.nsimplify(sp.sympify(expr, rational=True)) == sp.sympify(value), (expr, value)
    assert ROWS[pid]["answer"].rstrip().splitlines()[-1].startswith("#### ")


ECHOES = [  # a review's finds: the question's own expression, paid by value alone
    ("m-int-product", r"\boxed{17 \times 23}"), ("m-factor-difference", r"\boxed{x^2 - 9}"),
    ("m-expand-square", r"\boxed{(x+1)^2}"), ("m-simplify-rational", r"\boxed{\dfrac{x^2-1}{x-1}}"),
    ("m-sqrt-twelve", r"\boxed{\sqrt{12}}"), ("m-three-eighths", r"\boxed{\frac{3}{8}}"),
    ("m-decimal-to-percent", r"\boxed{0.45}"), ("m-gauss-sum", r"\boxed{\sum_{k=1}^{100} k}"),
    ("m-fraction-sum", r"\boxed{\frac{1}{2} + \frac{1}{3} + \frac{1}{12}}"), ("m-fraction-sum", r"\boxed{\frac{22}{24}}"),
]


@pytest.mark.parametrize("pid, echo", ECHOES)
def test_echoing_the_question_is_not_paid(pid, echo):
    from verifier.math import judge
    row = ROWS[pid]
    assert judge(row["answer"], echo).equivalent is True  # the same value...
    assert judge(row["answer"], echo, form=row["answer_form"]).equivalent is False  # ...not the answer


@pytest.mark.parametrize("pid", sorted(ROWS))
def test_gold_in_its_own_form_is_paid(pid):
    from verifier.math import judge
    from verifier.math.extract import extract_gold
    row = ROWS[pid]
    gold = extract_gold(row["answer"])
    assert judge(row["answer"], "The answer is $\\boxed{" + gold + "}$.",
                 form=row.get("answer_form", "value")).equivalent is True, gold
