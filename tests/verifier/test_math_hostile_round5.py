"""Hostile math review 5 (a helper playing the policy, with the service and the docs): 503
attacks in 21 classes, 177 paid, most of them hedges, negations, conditions and revisions in
French, Spanish, Portuguese, Italian, German, Russian, Chinese or Japanese around a box or after
an answer phrase (the word lists were English only), restatements after ", i.e.," with another
value, and " $7" x 8,000 after an answer phrase (17.6 s, paid, other requests held).

Kept: the 426 attacks that are no longer paid (the 74 still paid are listed in BENCHMARKS.md),
forms of each new rule with their controls; the pumped input is in test_math_linear_time.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifier.math import judge

ATTACKS = [json.loads(line) for line in
           (Path(__file__).resolve().parents[1] / "data" / "math_hostile5_attacks.jsonl").read_text(encoding="utf-8").split("\n") if line]


@pytest.mark.parametrize("category", sorted({a["category"] for a in ATTACKS}))
def test_the_fifth_reviews_attacks_are_not_paid(category):
    paid = [(a["id"], a["gold"], a["response"][-150:]) for a in ATTACKS
            if a["category"] == category and judge(a["gold"], a["response"]).equivalent]
    assert not paid, paid


@pytest.mark.parametrize("gold, response, paid", [
    # hedges, negations and conditions in other languages around a box
    ("5", "peut-être \\boxed{5}", False), ("5", "不是\\boxed{5}。", False), ("5", "\\boxed{5} ist falsch.", False),
    ("5", "\\boxed{5} si $n$ est pair.", False), ("5", "约\\boxed{5}", False), ("5", "примерно \\boxed{5}", False),
    # revisions in other languages after a box, a phrase or ####
    ("5", "\\boxed{5}. En fait, c'est 7.", False), ("5", "\\boxed{5}。等等，应为7。", False),
    ("5", "La respuesta es 5. En realidad, es 7.", False), ("5", "答案是5。不对，应该是7", False),
    ("5", "#### 5\n其实是7", False), ("yes", "\\boxed{Yes}. Non.", False), ("true", "\\boxed{True}. Falsch.", False),
    # restatements with another value; the same value again is fine
    ("2", "So $\\boxed{2}$, i.e., $\\frac{1}{3}$.", False), ("5", "So $\\boxed{5}$, i.e., $x = 7$.", False),
    ("5", "So $\\boxed{5}$, i.e., $5+2$.", False), ("5", "So $\\boxed{5}$, i.e., $x = 5$.", True),
    ("8, 9", "Therefore the answer is $\\boxed{8, 9}$, i.e., $x = 8, x = 9$.", True),
    # the controls: plain foreign answers and Chinese "约分" (reduce a fraction)
    ("5", "Donc la réponse est \\boxed{5}.", True), ("5", "所以答案是\\boxed{5}。", True),
    ("5", "Die Antwort ist \\boxed{5}.", True), ("5", "Ответ: \\boxed{5}.", True),
    ("\\frac{1}{2}", "约分得 \\boxed{\\frac{1}{2}}。", True), ("5", "Si on additionne, on obtient \\boxed{5}.", True),
    ("5", "Wenn wir addieren, erhalten wir \\boxed{5}.", True),
    # other numerals after a revision word, doubts and conditions the lists missed
    ("5", "\\boxed{5}. Actually it is ⑦.", False), ("5", "\\boxed{5}. Actually it is VII.", False),
    ("5", "\\boxed{5}。等等，我算错了，其实是七。", False), ("5", "La respuesta final es 5. O tal vez 7.", False),
    ("5", "La réponse est $5$. Je n'en suis pas sûr.", False), ("5", "\\boxed{5}？", False),
    ("5", "\\boxed{5} as long as $n$ is odd.", False), ("5", "The answer is \\boxed{5} for even n.", False),
    ("5", "The answer is \\boxed{5} for all n.", True), ("5", "He has 5 apples, so he has \\boxed{5}.", True),
    ("5", "\\boxed{5}\n\nWe count non-negative solutions only.", True),
    # a pile of values after the answer
    ("5", "The answer is 5." + " $7" * 200, False),
    # a question mark of its own and a "ballpark" note after the box (three still-paid
    # attacks, fixed after the review); a question answered, and a "why?", stay paid
    ("5", "\\boxed{5} (?)", False), ("5", "\\boxed{5}?", False), ("5", "\\boxed{5} (ballpark)", False),
    ("5", "Is it 5? Yes, \\boxed{5}.", True), ("5", "\\boxed{5}. Why? Because $2+3=5$.", True),
])
def test_forms_of_the_fifth_review(gold, response, paid):
    v = judge(gold, response)
    assert v.equivalent is paid, v
