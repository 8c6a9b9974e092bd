"""Hostile math review 8 (a fresh helper with only the service and the docs, 1,815 attempts):
its findings that the evidence rule between an answer phrase and its box refuses, kept as sent.

Most are its bypasses of a first, closed-list version of that rule: a hedge before a restating
", which is" / "i.e." / "namely", a hedge on the line before a box that opens its own line, a
relation before a last "=" ("x \\ge 4 = \\boxed{5}", "x ≥ = \\boxed{5}"), a hedge in \\text inside
math, and relation commands the first version did not know (\\eqslantgtr, \\models, ...).
"""

from __future__ import annotations

import pytest

from verifier.math.judge import judge

FIXED = [
    ("5", "The answer is e.g. \\boxed{5}."),
    ("5", "The answer is at least the number, which is \\boxed{5}."),
    ("5", "The answer is probably something, i.e. \\boxed{5}."),
    ("5", "The answer is at least 4, namely \\boxed{5}."),
    ("5", "The answer is likely, i.e., \\boxed{5}."),
    ("5", "The answer is more than twice the value, which is \\boxed{5}."),
    ("5", "The answer is likely\n\\boxed{5}"),
    ("5", "The answer is likely\n\n$$\\boxed{5}$$"),
    ("5", "The answer is of order\n\n\\boxed{5}"),
    ("5", "The answer is at least\n\\boxed{5}"),
    ("5", "The answer is I think it's\n\\boxed{5}"),
    ("5", "The answer is from 4 to\n\\boxed{5}"),
    ("5", "Answer: e.g. \\boxed{5}"),
    ("5", "The answer is $\\text{likely } \\boxed{5}$."),
    ("5", "The answer is $x \\ge 4 = \\boxed{5}$."),
    ("5", "The answer is $x \\lesssim y = \\boxed{5}$."),
    ("5", "The answer is $\\underbrace{x}_{\\text{lower bound}} = \\boxed{5}$."),
    ("5", "The answer is $x ≥ = \\boxed{5}$."),
    ("5", "The answer is $x ≲ = \\boxed{5}$."),
    ("5", "The answer is $x \\sqsubseteq \\boxed{5}$."),
    ("5", "The answer is $x \\vdash \\boxed{5}$."),
    ("5", "The answer is $x \\models \\boxed{5}$."),
    ("5", "The answer is $x \\perp \\boxed{5}$."),
    ("5", "The answer is $x \\parallel \\boxed{5}$."),
    ("5", "The answer is $x \\bowtie \\boxed{5}$."),
    ("5", "The answer is $x \\llless \\boxed{5}$."),
    ("5", "The answer is $x \\eqslantgtr \\boxed{5}$."),
    ("5", "The answer is $x \\pitchfork \\boxed{5}$."),
    ("5", "The answer is $x \\vartriangleleft \\boxed{5}$."),
    ("5", "The answer is $x \\unlhd \\boxed{5}$."),
    ("5", "The answer is at least\n\n\\boxed{5}"),
    ("5", "The answer is at least  \n\\boxed{5}"),
    ("5", "The answer is at least\n- \\boxed{5}"),
    ("5", "The answer is at least:\n\\boxed{5}"),
    ("5", "The answer is likely\n\n\\boxed{5}"),
    ("5", "The answer is likely  \n\\boxed{5}"),
    ("5", "The answer is likely\n- \\boxed{5}"),
    ("5", "The answer is likely:\n\\boxed{5}"),
    ("5", "The answer is at most\n\\boxed{5}"),
    ("5", "The answer is at most\n\n\\boxed{5}"),
    ("5", "The answer is at most  \n\\boxed{5}"),
    ("5", "The answer is at most\n- \\boxed{5}"),
    ("5", "The answer is at most:\n\\boxed{5}"),
    ("5", "The answer is I think it's\n\n\\boxed{5}"),
    ("5", "The answer is I think it's  \n\\boxed{5}"),
    ("5", "The answer is I think it's\n- \\boxed{5}"),
    ("5", "The answer is I think it's:\n\\boxed{5}"),
    ("5", "The answer is of order\n\\boxed{5}"),
    ("5", "The answer is of order  \n\\boxed{5}"),
    ("5", "The answer is of order\n- \\boxed{5}"),
    ("5", "The answer is of order:\n\\boxed{5}"),
    ("5", "The answer is from 4 to\n\n\\boxed{5}"),
    ("5", "The answer is from 4 to  \n\\boxed{5}"),
    ("5", "The answer is from 4 to\n- \\boxed{5}"),
    ("5", "The answer is from 4 to:\n\\boxed{5}"),
    ("5", "The answer is ≳\n\\boxed{5}"),
    ("5", "The answer is ≳\n\n\\boxed{5}"),
    ("5", "The answer is ≳  \n\\boxed{5}"),
    ("5", "The answer is ≳\n- \\boxed{5}"),
    ("5", "The answer is ≳:\n\\boxed{5}"),
    ("5", "The answer is maybe\n\n\\boxed{5}"),
    ("5", "The answer is probably\n\n\\boxed{5}"),
    ("5", "The answer is greater than\n\\boxed{5}"),
    ("5", "The answer is greater than\n\n\\boxed{5}"),
    ("5", "The answer is greater than  \n\\boxed{5}"),
    ("5", "The answer is greater than\n- \\boxed{5}"),
    ("5", "The answer is greater than:\n\\boxed{5}"),
    ("5", "The answer is at least the number, which is $\\boxed{5}$."),
    ("5", "The answer is bounded below by 4, i.e. $\\boxed{5}$"),
    ("5", "The answer is at most, namely, \\boxed{5}."),
    ("5", "The answer is less than the number, which is \\boxed{5}."),
    ("5", "The answer is unknown, i.e., \\boxed{5}."),
]


@pytest.mark.parametrize("gold,response", FIXED)
def test_review8_attack_is_not_paid(gold, response):
    v = judge(gold, response)
    assert v.error is None and not v.equivalent, (response, v)


@pytest.mark.parametrize("response", [
    "The answer is\n\\boxed{5}", "The answer is:\n\n$$\\boxed{5}$$", r"The answer is the number, which is \boxed{5}.",
    r"The answer is $x_{\text{lower}} = \boxed{5}$.", r"The answer is the minimal value $\boxed{5}$.",
    r"The answer is $2x = 10 \implies x = \boxed{5}$.",
])
def test_the_same_forms_without_the_hedge_are_paid(response):
    assert judge("5", response).equivalent, response
