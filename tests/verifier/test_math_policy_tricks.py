"""Metamorphic false-positive tests: each trick a hostile policy found is applied to many
golds from the generated corpus (bench/math_corpus.py), and none may be judged equivalent.

Truth holds by construction: every trick changes the value, states no value, or names two
answers (checked with sympy where it is a value). The fixed reproductions live in
test_math_false_positives.py; this file checks the CLASS, not the one string.
"""

from __future__ import annotations

import random
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp

from verifier.math import judge

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from math_corpus import (X, fam_fraction, fam_integer, fam_pi, fam_polynomial,  # noqa: E402
                         fam_radical, render_scalar)

_NUMBER_FAMS = [fam_integer, fam_fraction, fam_radical, fam_pi]


def _golds(n: int, seed: int, fams) -> list[tuple[str, object]]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        v = rng.choice(fams)(rng)[0]
        out.append((render_scalar(v, rng), v))
    return out


def _not_equivalent(gold: str, pred: str) -> None:
    v = judge(gold, pred, timeout_s=30)
    assert v.error is None, (gold, pred, v)
    assert v.equivalent is False, (gold, pred, v)


# a relation with no left (or right) side names no value
_DANGLING = [r"\boxed{{\neq {g}}}", r"\boxed{{\ne {g}}}", r"\boxed{{\le {g}}}",
             r"\boxed{{\leq {g}}}", r"\boxed{{\geq {g}}}", r"\boxed{{\ge {g}}}",
             r"\boxed{{< {g}}}", r"\boxed{{> {g}}}", r"\boxed{{{g} \le}}", r"\boxed{{\not= {g}}}",
             r"So the answer is $\neq {g}$.", r"\boxed{{\left( \ge {g} \right)}}",
             # what typesets as nothing does not supply the missing side
             r"\boxed{{\mathrm{{}}\le {g}}}", r"\boxed{{\quad \le {g}}}", r"\boxed{{~\le {g}}}",
             r"\boxed{{\text{{}}\le {g}}}", r"\boxed{{\displaystyle\le {g}}}",
             r"\boxed{{\left.\le {g}\right.}}", r"\boxed{{\: \neq {g}}}",
             r"\boxed{{\approx\le {g}}}", r"\boxed{{\sum_{{k=1}}^{{1}} \le {g}}}",
             r"\boxed{{\mbox{{}}\le {g}}}", r"\boxed{{{{}}\le {g}}}"]


@pytest.mark.parametrize("template", _DANGLING)
def test_dangling_relation_is_not_the_value(template):
    for gold, _ in _golds(12, 101, _NUMBER_FAMS + [fam_polynomial]):
        _not_equivalent(gold, template.format(g=gold))


# math-verify reads a fragment of what it cannot parse; a set/list hedge is two answers
_HEDGES = [r"\boxed{{\sum_{{k=1}}^{{1}} \{{{g}, 987654\}}}}",
           r"\boxed{{\sum_{{k=1}}^{{1}} \{{987654, {g}\}}}}",
           r"\boxed{{\prod_{{k=1}}^{{1}} \{{{g}, 987654\}}}}",
           r"\boxed{{\{{{g}, 987654\}}}}", r"\boxed{{{g}, 987654}}"]


@pytest.mark.parametrize("template", _HEDGES)
def test_hedged_sets_are_not_the_value(template):
    for gold, _ in _golds(12, 202, [fam_integer, fam_fraction]):
        _not_equivalent(gold, template.format(g=gold))


def _six_digits(v: Fraction) -> str | None:
    s = f"{float(v):.6f}"
    return None if Fraction(s) == v else s


def test_six_digit_decimals_are_not_exact_golds():
    """An UNMARKED 6-digit decimal is not an exact fraction (math-verify rounds to 6 digits;
    our policy is rel 1e-9 unless the prediction says it is approximate)."""
    rng = random.Random(303)
    seen = 0
    while seen < 15:
        v = fam_fraction(rng)[0]
        dec = _six_digits(Fraction(int(v.p), int(v.q)))
        if dec is None:
            continue
        seen += 1
        gold = rf"\frac{{{v.p}}}{{{v.q}}}"
        for pred in (rf"\boxed{{{dec}}}", rf"\boxed{{\sum_{{k=1}}^{{1}} {dec}}}",
                     rf"\boxed{{\neq {dec}}}"):
            _not_equivalent(gold, pred)


# a different constant is a different expression, however small (no tolerance for exact input)
_OFFSETS = [r"\boxed{{{g} + 10^{{-30}}}}", r"\boxed{{{g} - 10^{{-60}}}}",
            r"\boxed{{{g} + 10^{{-40}}\pi}}", r"\boxed{{{g} + \frac{{1}}{{10^{{50}}}}}}",
            r"\boxed{{{g} + e^{{-100}}}}"]


@pytest.mark.parametrize("template", _OFFSETS)
def test_tiny_offsets_change_the_value(template):
    for gold, _ in _golds(10, 404, _NUMBER_FAMS + [fam_polynomial]):
        _not_equivalent(gold, template.format(g=gold))


# piecewise functions that agree with the gold near the origin only
_PIECEWISE = [r"\boxed{{{g} + \max(0, x - 1000)}}", r"\boxed{{{g} + \min(0, 1000 - x)}}",
              r"\boxed{{{g} + \max(0, x - 10^{{100}})}}", r"\boxed{{{g} + \min(0, x + 10^{{100}})}}",
              r"\boxed{{{g} + |x - 10^{{80}}| - (10^{{80}} - x)}}",
              r"\boxed{{{g} + \lfloor \frac{{x}}{{10^{{90}}}} \rfloor}}"]


@pytest.mark.parametrize("template", _PIECEWISE)
def test_piecewise_agreement_near_origin_is_no_identity(template):
    for gold, v in _golds(8, 505, [fam_polynomial]):
        assert X in sp.sympify(v).free_symbols
        _not_equivalent(gold, template.format(g=gold))


def test_exact_identities_still_hold():
    """The oracle side: the same golds against TRUE rewrites stay equivalent (the fixes
    must not buy zero false positives with misses)."""
    for gold, v in _golds(8, 606, [fam_polynomial]):
        for pred in (str(sp.factor(v)).replace("**", "^").replace("*", ""),
                     rf"{gold} + \max(x, x)- x", rf"{gold} + |x-1| - |1-x|"):
            out = judge(gold, rf"\boxed{{{pred}}}", timeout_s=30)
            assert out.error is None and out.equivalent, (gold, pred, out)


_REVISIONS = ["The answer is {g}. Hmm, actually I think it is {o}.",
              "The answer is {g}.\nWait, it should be {o}.",
              "Final Answer: {g}. On second thought the answer is {o}",
              "The answer is {g}. Oops, that was a mistake: {o}.",
              "The answer is {g}. Or {o}.", "The answer is {g}. (Maybe {o}.)",
              "The answer is {g}.\nPossibly {o} though."]


@pytest.mark.parametrize("template", _REVISIONS)
def test_revised_phrase_answer_is_no_answer(template):
    for gold, _ in _golds(10, 707, [fam_integer]):
        other = str(int(sp.sympify(gold.replace(",", "").replace("\\!", ""))) + 1) \
            if gold.lstrip("-").isdigit() else "7"
        _not_equivalent(gold, template.format(g=gold, o=other))


def test_approximations_need_digits_that_determine_the_value():
    """A marked approximation counts only with >= 6 significant digits: 3 digits fit several
    exact answers; 8 correctly rounded digits are accepted (the oracle side)."""
    for gold, v in _golds(12, 808, [fam_fraction, fam_radical, fam_pi]):
        val = sp.N(v, 30)
        if val == 0 or sp.Rational(str(sp.N(v, 8))) == v:
            continue  # an exact decimal is no approximation test
        _not_equivalent(gold, rf"\boxed{{\approx {sp.N(v, 3)}}}")
        _not_equivalent(gold, rf"\boxed{{\approx {sp.N(v * (1 + sp.Rational(1, 10**5)), 8)}}}")
        out = judge(gold, rf"\boxed{{\approx {sp.N(v, 8)}}}", timeout_s=30)
        assert out.error is None and out.equivalent, (gold, out)


# Red-team finding: writing a decimal point bought the 1e-9 tolerance against golds a decimal
# can state exactly (integers, 1/8, 3^20000): 5050.000001 was paid for 5050. A decimal off such
# a value, by however little, is another number; the tolerance stays for values a decimal can
# only approximate (1/3, sqrt 2, pi), where a correct rounding must still be accepted.
def _decimal_near(v: Fraction, rel: float) -> str:
    off = v + max(abs(v), Fraction(1)) * Fraction(rel)
    num = abs(off.numerator) * 10 ** 24 // off.denominator
    s = str(num).rjust(25, "0")
    return ("-" if off < 0 else "") + s[:-24] + "." + s[-24:].rstrip("0")


def test_decimals_off_a_finite_decimal_gold_are_not_it():
    rng = random.Random(517)
    for _ in range(25):
        n = rng.choice([rng.randint(2, 10 ** 6), rng.randint(10 ** 9, 10 ** 15)])
        d = rng.choice([1, 2, 4, 5, 8, 16, 25, 125])
        v = Fraction(n, d)
        gold = str(n) if d == 1 else rf"\frac{{{n}}}{{{d}}}"
        for rel in (1e-10, 3e-11, -2e-10):
            pred = _decimal_near(v, rel)
            assert Fraction(pred) != v  # truth by construction: another number
            _not_equivalent(gold, rf"\boxed{{{pred}}}")
        for pred in (rf"\boxed{{{n}.0 + 10^{{-12}}}}",) if d == 1 else ():
            _not_equivalent(gold, pred)
    for gold, pred in ((r"3^{2000}", r"\boxed{3^{2000}+1.0}"), ("10^{12}", r"\boxed{1000000000001.0}"),
                       ("123456789012", r"\boxed{1.23456789 \times 10^{11}}"),
                       ("[0, 5050]", r"\boxed{[0, 5050.000001]}")):
        _not_equivalent(gold, pred)


def test_correct_decimals_of_values_a_decimal_cannot_state_still_count():
    rng = random.Random(518)
    for _ in range(20):
        p, q = rng.randint(1, 10 ** 6), rng.choice([3, 7, 9, 11, 13, 21, 27])
        if Fraction(p, q).denominator == 1:
            continue
        dec = f"{Fraction(p, q).__float__():.12g}"
        v = judge(rf"\frac{{{p}}}{{{q}}}", rf"\boxed{{{dec}}}", timeout_s=30)
        assert v.equivalent is True, (p, q, dec, v)
    for gold, pred in ((r"\sqrt{2}", r"\boxed{1.41421356237}"), (r"\pi", r"\boxed{3.14159265359}"),
                       ("3", r"\boxed{\log_{2}(8.0)}"), ("5050", r"\boxed{5050.0}"),
                       ("1/8", r"\boxed{0.125}"), ("[0, 5050]", r"\boxed{[0, 5050.0]}")):
        v = judge(gold, pred, timeout_s=30)
        assert v.equivalent is True, (gold, pred, v)


# Red-team finding: a term that is zero at every rational whose denominator divides N! (tan or
# sin of N! pi x) passed the identity check, whose sample points had small denominators.
@pytest.mark.parametrize("term", [r"\tan({n}! \pi x)", r"\sin({n}! \pi x)", r"\sin(2 \cdot {n}! \pi x)"])
def test_terms_vanishing_at_small_denominators_are_not_zero(term):
    for n in (60, 100, 300):
        for gold in ("x^2", r"x^3 - 2x + 1"):
            _not_equivalent(gold, rf"\boxed{{{gold} + {term.format(n=n)}}}")
