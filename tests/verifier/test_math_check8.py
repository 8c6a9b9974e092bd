"""Out-of-sample check 8 (a helper's 2,576 labelled responses over 28 answer types and 40
styles, truth by construction, plus 153 attacks; judged over HTTP beside math-verify).

Before: 0 FP, 109 FN (95.8 %), 0 of 153 attacks paid; math-verify 89.6 %, 114 FP, 64 attacks
paid. The refusals: answer phrases in French, Spanish, German, Chinese without a box ("La
réponse finale est 6.25.", "综上所述，答案是 -46。"), a check line naming an intermediate value
after the box ("Check: the intermediate quantity $8$ matches. ✓"), a note on an intermediate
value ("Note that the key intermediate quantity was $315$."), and the box restated in another
form (", i.e., ${9 \\over 4}$", "$(3,2)$" again after "\\boxed{(3,2)}"). One input took 110 s
(spaces after "is ="; test_math_linear_time.py). Kept here: every item refused before (but one: "So we get +∞." in prose, still refused), 160
drawn at random, and the attacks (the pumped ones are in test_math_linear_time.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifier.math import judge

DATA = Path(__file__).resolve().parents[1] / "data"


def _load(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines()]


def test_the_check8_sample_is_judged_as_labelled():
    wrong = []
    for it in _load("math_check8_sample.jsonl"):
        v = judge(it["gold"], it["response"])
        if v.equivalent != it["expected"]:
            wrong.append((it["id"], it["style"], it["gold"], it["response"][-160:], v.reason))
    assert not wrong, wrong


def test_the_check8_attacks_are_not_paid():
    paid = [(a["id"], a["kind"], a["gold"], a["response"][-150:]) for a in _load("math_check8_attacks.jsonl")
            if judge(a["gold"], a["response"]).equivalent]
    assert not paid, paid


@pytest.mark.parametrize("gold, response, paid", [
    # answer phrases in other languages, and another value after them
    ("6.25", "Long division gives 6.25.\n\nLa réponse finale est 6.250.", True),
    ("6.25", "La réponse finale est 6.35.", False),
    ("\\frac{23}{28}", "La respuesta final es $\\tfrac{23}{28}$.", True),
    ("1163", "Die Antwort lautet 1163.", True), ("1163", "Die Antwort lautet 1164.", False),
    ("-46", "综上所述，答案是 -46。", True), ("738", "所以最终答案为：$738 \\text{ marbles}$。", True),
    ("-46", "综上所述，答案是 -47。", False), ("7", "Ответ: 7.", True), ("7", "Ответ: 8.", False),
    ("5", "$\\boxed{5}$\n\nLa réponse finale est 7.", False),
    ("5", "La respuesta final es 5. Wait, actually it is 7.", False),
    # intermediate values in a check or a note after the answer
    ("38125", "the answer is $\\boxed{38\\,125}$.\n\nCheck: the intermediate quantity $8$ matches. ✓", True),
    ("477", "The answer is $\\boxed{477}$.\n\nNote that the key intermediate quantity was $315$.", True),
    ("477", "The answer is $\\boxed{477}$.\n\nCheck: the intermediate quantity $8$ fails. ✗", False),
    ("477", "The answer is $\\boxed{477}$.\n\nNote that the answer was $315$.", False),
    # the box restated in another written form; another value instead
    ("\\frac{9}{4}", "Therefore the answer is $\\boxed{2\\frac{1}{4}}$, i.e., ${9 \\over 4}$.", True),
    ("(3,2)", "Therefore the answer is $\\boxed{(3,2)}$, i.e., $(3,2)$.", True),
    ("(3,2)", "Therefore the answer is $\\boxed{(3,2)}$, i.e., $(3,1)$.", False),
    ("(-\\infty, -8) \\cup (3, \\infty)",
     "Therefore the answer is $\\boxed{\\left(-\\infty, -8\\right) \\cup \\left(3, +\\infty\\right)}$, i.e., "
     "$(-\\infty,-8)\\cup(3,\\infty)$.", True),
    ("5", "$\\boxed{5}$, i.e., $7$.", False), ("5", "$$\\boxed{5}$$\n\nOr 7.", False),
])
def test_forms_of_check8(gold, response, paid):
    v = judge(gold, response)
    assert v.equivalent is paid, v
