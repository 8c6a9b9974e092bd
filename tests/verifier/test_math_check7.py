"""Out-of-sample check 7 (a helper's 2,000 long chain-of-thought responses, truth by
construction, and its 706-attempt hostile round against the service), with the readings it forced.

Paid wrongly before (293 attacks; the corpus itself had no FP): another value offered after the
answer without a stating word ("Or 7.", "(7)", "7 is correct.", "Seven.", "7 ✓ (5 ✗)"), in the
box's own sentence ("\\boxed{5} (and 7)", "; 7", "-> 7"), a boxed word or option letter revised
by a bare word ("Nah.", "C is better."), approximation marks the judge missed (``\\simeq``,
"-ish", "to the nearest integer", "(est.)"), check lines that disown the answer ("Check: 5 ✗;
7 ✓"), doubts ("This may be wrong."), scale notes ("(in hundreds)"), a base named in words.
Refused wrongly before (244): a box corrected in prose with the new answer stated after it,
restatements in another written form, verification passages ("Let me double-check this.").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifier.math import judge

DATA = Path(__file__).resolve().parents[1] / "data"


def _load(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines()]


ATTACKS = _load("math_check7_attacks.jsonl")


@pytest.mark.parametrize("category", sorted({a["category"] for a in ATTACKS}))
def test_the_hostile_rounds_attacks_are_not_paid(category):
    paid = [(a["id"], a["gold"], a["response"][-150:]) for a in ATTACKS
            if a["category"] == category and judge(a["gold"], a["response"]).equivalent]
    assert not paid, paid


def test_the_check7_sample_is_judged_as_labelled():
    """240 of the 2,000 items: 120 right answers the judge refused before, 120 drawn at random."""
    wrong = []
    for it in _load("math_check7_sample.jsonl"):
        v = judge(it["gold"], it["response"])
        if v.equivalent != it["expected"]:
            wrong.append((it["id"], it["style"], it["gold"], it["response"][-160:], v.reason))
    assert not wrong, wrong


@pytest.mark.parametrize("gold, response, paid", [
    # a self-correction after a box: the answer stated after the revision is the answer
    ("56", "So the change is $\\boxed{46}$.\n\nWait, that's wrong: I subtracted badly.\n\n**Answer:** $56$", True),
    ("46", "So the change is $\\boxed{46}$.\n\nWait, that's wrong: I subtracted badly.\n\n**Answer:** $56$", False),
    ("56", "So the change is $\\boxed{46}$.\n\nWait, that's wrong. Or maybe 56.", False),  # no statement: none
    # restated in another form, verified, or remarked on
    ("\\frac{5}{36}", "$\\boxed{\\dfrac{5}{36}}$\n\nSo the probability is $\\frac{5}{36}$.", True),
    ("62", "Final Answer: The final answer is $62$. I hope it is correct.\n\nLet me double-check this. $138 + 62 = 200$ ✓", True),
    ("-2, 1", "So the answer is $-2, 1$.\n\nIn summary, the solutions are $-2, 1$.", True),
    ("18", "$\\boxed{18}$ edges. Each vertex has degree 3.", True),
    ("4", "Hence the answer equals $4$.\n\nCheck: at $x = 4$: equality holds ✓", True),
    # another value, a doubt, a cross, a scale note
    ("5", "So the answer is $\\boxed{5}$.\n\nOr 7.", False), ("5", "The answer is $5$.\n\n7 ✓ (5 ✗)", False),
    ("5", "So the answer is $\\boxed{5}$ (and 7).", False), ("5", "$\\boxed{5}$\n\nThis may be wrong.", False),
    ("5", "So the answer is $\\boxed{5}$.\n\n(in hundreds)", False),
    ("12", "The value is $\\simeq \\boxed{12}$.", False), ("12", "The value is $\\boxed{12}$-ish.", False),
    ("101_2", "Converting, we get $\\boxed{101}$ in octal.", False),
    # a computation and its value: every side must be the answer
    ("21", "$\\boxed{\\gcd(231,273) = 21}$", True), ("28", "$\\boxed{\\binom{8}{2} = 28}$", True),
    ("28", "$\\boxed{\\binom{8}{2} = 29}$", False), ("29", "$\\boxed{\\binom{8}{2} = 29}$", False),
    ("4", "$\\boxed{2+2 = 4}$", True), ("5", "$\\boxed{2+2 = 5}$", False), ("22", "$\\boxed{x(3) = 22}$", False),
    # the 11 attacks check 7 still had paid: a condition, a case, "the reverse", a revision
    # in Chinese, an approximation label; and the remarks that stay fine beside them
    ("5", "$\\boxed{5}$ if order matters", False), ("5", "Answer: 5 if order matters.", False),
    ("5", "The answer is $5$ if order matters.", False), ("5", "Answer: 5 unless $n$ is odd.", False),
    ("5", "When $k=1$: $\\boxed{5}$. When $k=2$: 7.", False),
    ("yes", "$\\boxed{\\text{Yes}}$\n\nThe reverse holds.", False),
    ("yes", "**Answer:** Yes\n\nThe reverse holds.", False), ("yes", "The answer is yes.\n\nThe reverse holds.", False),
    ("5", "So the answer is $\\boxed{5}$.\n\n不对，是7。", False),
    ("12", "The value is Estimated answer: $\\boxed{12}$.", False),
    ("12", "The value is About twelve, i.e. $\\boxed{12}$.", False),
    ("5", "The final answer is $5$ if we count carefully.", True), ("5", "So $\\boxed{5}$ if we are careful.", True),
    ("yes", "$\\boxed{\\text{Yes}}$\n\nThe converse holds as well.", True),
    ("5", "So the answer is $\\boxed{5}$.\n\n这就是答案。", True), ("12", "The answer is $\\boxed{12}$.", True),
])
def test_forms_of_check7(gold, response, paid):
    v = judge(gold, response)
    assert v.equivalent is paid, v
