"""Metamorphic corpus for the math judge: (gold, prediction, expected) pairs whose truth
holds by construction, not by anyone's labelling.

Each item starts from a random value built with sympy (an integer, a fraction, a decimal,
a radical, a multiple of pi, a polynomial, an interval, a finite set, a tuple, a matrix).
The gold is that value printed one way; an EQUAL prediction is the same value (or an
equivalent form of it: factored vs expanded, unreduced fraction, mixed number, 2*sqrt(2)
for sqrt(8), a shuffled set, an inequality for an interval) printed another way and
wrapped in a formatting habit (boxed, "The answer is ...", "Final Answer:", "####",
markdown bold, a unit noun, thousands separators, plain text, \\dfrac). A PERTURBED
prediction is a changed value (off by one, reciprocal, sign, other radicand, other
coefficient, an open end made closed, a swapped tuple, a transposed matrix...) printed
the same ways; sympy checks that the change really changes the value, so its label
"not equivalent" holds by construction too.

Conventions that are policy rather than mathematics (percent as unit or value, degrees,
ratios) are left out: this corpus only holds pairs any judge should agree on.

    python bench/math_corpus.py --n 600 --seed 1 --out /tmp/corpus.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import sympy as sp

X = sp.Symbol("x")
UNIT_NOUNS = ["apples", "cm", "dollars", "eggs", "students", "meters", "minutes", "pages"]


# -- printers -----------------------------------------------------------------------------
def _tex(v) -> str:
    return sp.latex(v)


def _dfrac(v) -> str:
    return sp.latex(v).replace("\\frac", "\\dfrac")


def _plain(v) -> str:
    return sp.sstr(v).replace("**", "^")


def _thousands(n: int, rng: random.Random) -> str:
    s = f"{abs(n):,}"
    sep = rng.choice([",", "{,}", ",\\!", "\\,", " "])
    return ("-" if n < 0 else "") + s.replace(",", sep)


def render_scalar(v, rng: random.Random) -> str:
    """One printing of a scalar value, chosen at random among the ways people write it."""
    if isinstance(v, str):  # a form that only exists as text (mixed number, label)
        return v
    if v.is_Integer:
        options = ["tex", "plain"] + (["thousands"] if abs(int(v)) >= 1000 else [])
        how = rng.choice(options)
        s = _thousands(int(v), rng) if how == "thousands" else str(v)
    elif v.is_Rational:
        how = rng.choice(["tex", "dfrac", "plain", "slash"])
        s = {"tex": _tex, "dfrac": _dfrac, "plain": _plain}.get(how, lambda w: f"{w.p}/{w.q}")(v)
    else:
        how = rng.choice(["tex", "dfrac", "plain"])
        s = {"tex": _tex, "dfrac": _dfrac, "plain": _plain}[how](v)
    return s


def wrap(answer: str, rng: random.Random, plain_ok: bool) -> tuple[str, str]:
    """Put an answer into a whole response the way models write them. ``plain_ok``: the
    answer is a plain number, so GSM8K habits (####, a unit noun after it) apply too."""
    habits = ["boxed", "boxed_sentence", "answer_is", "final", "bold", "math_span", "bare"]
    if plain_ok:
        habits += ["gsm", "unit_sentence", "unit_bare"]
    h = rng.choice(habits)
    unit = rng.choice(UNIT_NOUNS)
    lead = rng.choice(["We simplify step by step.", "Let me compute this carefully.",
                       "Using the formula above, we get a value."])
    return h, {
        "boxed": f"{lead}\n\\boxed{{{answer}}}",
        "boxed_sentence": f"{lead} So the result is $\\boxed{{{answer}}}$.",
        "answer_is": f"{lead} The answer is ${answer}$.",
        "final": f"{lead}\nFinal Answer: The final answer is ${answer}$. I hope it is correct.",
        "bold": f"{lead}\n**Answer:** **${answer}$**",
        "math_span": f"{lead} Hence we obtain $${answer}$$",
        "bare": answer,
        "gsm": f"{lead}\n#### {answer}",
        "unit_sentence": f"{lead} The answer is {answer} {unit}.",
        "unit_bare": f"{answer} {unit}",
    }[h]


# -- value families: (gold value, equal forms, perturbed values) -----------------------------
def _rand_frac(rng):
    q = rng.randint(2, 30)
    p = rng.choice([k for k in range(-60, 61) if k % q])
    return sp.Rational(p, q)


def fam_integer(rng):
    v = sp.Integer(rng.choice([rng.randint(-99, 99), rng.randint(1000, 10 ** 7)]))
    equal = [v, f"x = {v}", f"{v} \\text{{ {rng.choice(UNIT_NOUNS)}}}"]
    if abs(v) >= 1000 and int(v) % 1000 == 0:
        equal.append(f"{int(v) // 1000} \\times 10^{{3}}")
    return v, equal, [v + 1, v - 1, v * 10, -v if v else v + 2, sp.Integer(str(abs(int(v)))[::-1])]


def fam_fraction(rng):
    v = _rand_frac(rng)
    k = rng.randint(2, 5)
    equal = [v, sp.UnevaluatedExpr(v.p * k) / (v.q * k)]
    if v.q in (2, 4, 5, 8, 10, 20, 25):
        equal.append(sp.Float(repr(float(v))))
    whole = abs(v.p) // v.q
    if whole:  # a mixed number, as printed text: "-3 1/2" or "3\frac{1}{2}"
        sign = "-" if v < 0 else ""
        rest = sp.Rational(abs(v.p) - whole * v.q, v.q)
        equal.append(rng.choice([f"{sign}{whole} {rest.p}/{rest.q}",
                                 f"{sign}{whole}\\frac{{{rest.p}}}{{{rest.q}}}"]))
    if v < 0:
        equal.append(f"\\frac{{{v.p}}}{{{v.q}}}")
    return v, equal, [v + sp.Rational(1, v.q), 1 / v, -v, sp.Rational(v.p + 1, v.q)]


def fam_radical(rng):
    a, b, c = rng.randint(1, 9), rng.choice([2, 3, 5, 6, 7, 10]), rng.randint(1, 9)
    v = a * sp.sqrt(b) / c
    equal = [v, sp.UnevaluatedExpr(a) * sp.sqrt(sp.UnevaluatedExpr(b * 4)) / (2 * c)]
    return v, equal, [(a + 1) * sp.sqrt(b) / c, a * sp.sqrt(b + 1) / c, sp.Rational(a * b, c), -v]


def fam_pi(rng):
    p, q = rng.randint(1, 12), rng.randint(1, 12)
    v = sp.Rational(p, q) * sp.pi
    return v, [v], [v + sp.pi, sp.Rational(p, q), 2 * v, sp.Rational(p + 1, q) * sp.pi]


def fam_polynomial(rng):
    r1, r2 = rng.randint(-6, 6), rng.randint(-6, 6)
    a = rng.randint(1, 3)
    factored = a * (X - r1) * (X - r2)
    v = sp.expand(factored)
    return v, [v, factored], [v + 1, sp.expand(a * (X + r1) * (X - r2)) if r1 else v - X,
                              sp.expand(factored * X), v.subs(X, -X) if r1 + r2 else v + X]


def _interval_tex(lo, hi, lo_open, hi_open) -> str:
    return f"{'(' if lo_open else '['}{sp.latex(lo)}, {sp.latex(hi)}{')' if hi_open else ']'}"


def fam_interval(rng):
    lo = rng.randint(-9, 5)
    hi = lo + rng.randint(1, 9)
    lo_open, hi_open = rng.random() < 0.5, rng.random() < 0.5
    gold = _interval_tex(lo, hi, lo_open, hi_open)
    lo_op, hi_op = ("<" if lo_open else "\\le"), ("<" if hi_open else "\\le")
    ineq = f"{lo} {lo_op} x {hi_op} {hi}"
    equal = [gold, ineq]
    perturbed = [_interval_tex(lo, hi, not lo_open, hi_open),
                 _interval_tex(lo, hi, lo_open, not hi_open),
                 _interval_tex(lo - 1, hi, lo_open, hi_open), _interval_tex(lo, hi + 1, lo_open, hi_open)]
    return gold, equal, perturbed


def fam_set(rng):
    items = rng.sample(range(-12, 13), rng.randint(2, 4))
    gold = "\\{" + ", ".join(map(str, items)) + "\\}"
    shuffled = items[:]
    rng.shuffle(shuffled)
    changed = items[:]
    changed[rng.randrange(len(items))] = max(items) + 1
    return gold, [gold, "\\{" + ", ".join(map(str, shuffled)) + "\\}"], [
        "\\{" + ", ".join(map(str, changed)) + "\\}",
        "\\{" + ", ".join(map(str, items[:-1])) + "\\}"]


def fam_tuple(rng):
    a, b = rng.sample(range(-9, 10), 2)
    fa, fb = _rand_frac(rng), sp.Integer(b)
    gold = f"({sp.latex(fa)}, {b})"
    return gold, [gold, f"\\left({_dfrac(fa)}, {b}\\right)", f"({fa.p}/{fa.q}, {b})"], [
        f"({b}, {sp.latex(fa)})", f"({sp.latex(fa)}, {b + 1})", f"({sp.latex(-fa)}, {b})"]


def _pmatrix(m, env="pmatrix") -> str:
    rows = " \\\\ ".join(" & ".join(sp.latex(x) for x in row) for row in m.tolist())
    return f"\\begin{{{env}}} {rows} \\end{{{env}}}"


def fam_matrix(rng):
    m = sp.Matrix(2, 2, [rng.randint(-5, 5) for _ in range(4)])
    while m == m.T:
        m[0, 1] += 1
    gold = _pmatrix(m)
    changed = m.copy()
    changed[1, 1] += 1
    return gold, [gold, _pmatrix(m, "bmatrix")], [_pmatrix(m.T), _pmatrix(changed), _pmatrix(-m)]


def fam_adversary(rng):
    """Responses that mention the gold value but do not give it as the final answer,
    give several answers, or split it into digits: never equivalent (the classes of
    false positive an RL policy would find)."""
    v = rng.randint(12, 99)
    w = v + rng.choice([-3, -1, 1, 2, 7])
    a, b = next(((d, v // d) for d in range(2, 10) if v % d == 0), (1, v))
    preds = [f"I first thought it was {v}, but that is wrong. The answer is {w}.",
             f"The answer is {v} or {w}.", f"\\boxed{{{v}}} or \\boxed{{{w}}}",
             f"\\boxed{{{a} {b}}}", f"{a} {b}", f"Therefore $x \\geq {v}$ is the solution.",
             f"We checked {v} cases and none works.", f"QX{v}Z", f"\\boxed{{{v}, {w}}}",
             f"The answer is {str(v)[0]} {str(v)[1]}.",
             f"\\boxed{{\\{rng.choice(['not', 'neg', 'tilde', 'hat', 'cancel{1}', 'lim'])} {v}}}",
             f"\\boxed{{{v} {rng.choice(['hundred', 'halves', 'times 2', 'or more'])}}}"]
    return sp.Integer(v), [], preds


FAMILIES = {"integer": fam_integer, "fraction": fam_fraction, "radical": fam_radical,
            "pi": fam_pi, "polynomial": fam_polynomial, "interval": fam_interval,
            "set": fam_set, "tuple": fam_tuple, "matrix": fam_matrix, "adversary": fam_adversary}
_SCALAR = {"integer", "fraction", "radical", "pi", "polynomial", "adversary"}


def _differs(family: str, gold, other) -> bool:
    """Truth of a perturbation, checked with sympy rather than assumed."""
    if family == "adversary":
        return True
    if isinstance(other, str) and family in _SCALAR:
        return True
    if family in _SCALAR:
        return sp.simplify(sp.sympify(gold) - sp.sympify(other)) != 0
    return gold != other  # strings of canonical printings: different text, different value


def generate(n: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    out: list[dict] = []
    seen: set[tuple[str, str]] = set()
    names = sorted(FAMILIES)
    while len(out) < n:
        family = names[len(out) % len(names)]
        gold_v, equal, perturbed = FAMILIES[family](rng)
        scalar = family in _SCALAR
        gold = render_scalar(gold_v, rng) if scalar else gold_v
        want = len(out) % 2 == 0 and bool(equal)
        if want:
            form = rng.choice(equal)
        else:
            form = rng.choice(perturbed)
            if not _differs(family, gold_v if scalar else gold, form):
                continue
        if family == "adversary":
            habit, pred = "adversary", form
        else:
            ans = render_scalar(form, rng) if scalar else form
            habit, pred = wrap(ans, rng, plain_ok=family == "integer" and "\\" not in ans
                               and "=" not in ans)
        if (gold, pred) in seen:
            continue
        seen.add((gold, pred))
        out.append({"gold": gold, "prediction": pred, "expected": want, "family": family,
                    "habit": habit})
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=900)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="-")
    a = ap.parse_args()
    lines = [json.dumps(c) for c in generate(a.n, a.seed)]
    if a.out == "-":
        print("\n".join(lines))
    else:
        Path(a.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
