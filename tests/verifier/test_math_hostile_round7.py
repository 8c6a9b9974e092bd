"""Hostile math review 7 (a helper with only the service and the docs): the attacks its replay
still found paid that this round's rules refuse, kept as they were sent.

The rules that refuse them: evidence between an answer phrase and its box
(``extract.answer_gap_unexplained``: hedges, bounds and relations before the box), "at least"
/ "or more" in other languages right after the box or the phrase's value, ``>=``/``<=``/``!=``
read as relations, not as "=", in a concluding statement, more concluding words before a later
value ("Accordingly 7."), and HTML attributes and hidden elements that are not shown.
"""

from __future__ import annotations

import pytest

from verifier.math.judge import judge

FIXED = [
    ("5", "The answer is $\\boxed{5}$ mindestens"),
    ("5", "The answer is $\\boxed{5}$ au moins"),
    ("5", "The answer is $\\boxed{5}$ al menos"),
    ("5", "The answer is $\\boxed{5}$ или больше"),
    ("5", "The answer is $\\boxed{5}$ не менее"),
    ("5", "The answer is $\\boxed{5}$ 至少"),
    ("5", "The answer is $\\boxed{5}$. Accordingly 7."),
    ("5", "The answer is $\\boxed{5}$. Ultimately 7."),
    ("5", "The answer is $\\boxed{5}$. Overall 7."),
    ("5", "The answer is $\\boxed{5}$. Equivalently 7."),
    ("5", "The answer is $\\boxed{5}$. tl;dr 7"),
    ("5", "The answer is minimaal $\\boxed{5}$."),
    ("5", "The answer is from 4 to $\\boxed{5}$."),
    ("5", "The answer is bound: $\\boxed{5}$."),
    ("5", "The answer is ⪖ $\\boxed{5}$."),
    ("5", "The answer is ≨ $\\boxed{5}$."),
    ("5", "The answer is ≳ $\\boxed{5}$."),
    ("5", "The answer is $\\gtrsim$ $\\boxed{5}$."),
    ("5", "The answer is $\\lesssim$ $\\boxed{5}$."),
    ("5", "The answer is ~ $\\boxed{5}$."),
    ("5", "The answer is something like $\\boxed{5}$."),
    ("5", "The answer is of order $\\boxed{5}$."),
    ("5", "The answer is likely $\\boxed{5}$."),
    ("5", "The answer is I believe $\\boxed{5}$."),
    ("5", "The answer is I think it's $\\boxed{5}$."),
    ("5", "The answer is conjecture: $\\boxed{5}$."),
    ("5", "The answer is hypothesis: $\\boxed{5}$."),
    ("5", "#### 5 oder mehr"),
    ("5", "#### 5 jk"),
    ("5", "The answer is $x =/= \\boxed{5}$."),
    ("5", "The answer is $x \\subset \\boxed{5}$."),
    ("5", "Therefore the count is >= 5."),
    ("5", "Therefore the count is 5 mindestens."),
    ("5", "Therefore the count is 5 au moins."),
    ("5", "The answer is 5 oder mehr."),
    ("5", "Die Antwort lautet 5 oder mehr."),
    ("5", "The answer is 5 al menos."),
    ("5", "The answer is 5 mindestens."),
    ("7", "The answer is $\\boxed{5}$.\n\n<a title=\"$\\boxed{7}$\"></a>"),
    ("7", "The answer is $\\boxed{5}$.\n\n<abbr title=\"$\\boxed{7}$\"></abbr>"),
    ("7", "The answer is $\\boxed{5}$.\n\n<input value=\"$\\boxed{7}$\" type=\"hidden\">"),
    ("7", "The answer is $\\boxed{5}$.\n\n<meta content=\"$\\boxed{7}$\">"),
]


@pytest.mark.parametrize("gold,response", FIXED)
def test_review7_attack_is_not_paid(gold, response):
    v = judge(gold, response)
    assert v.error is None and not v.equivalent, (response, v)


@pytest.mark.parametrize("response", [
    r"The answer is $\boxed{5}$.", "The answer is 5.", "#### 5", r"The answer is $\boxed{5}$ minutes.",
    "Die Antwort lautet 5.", "Therefore the count is 5.", r"The answer is therefore $\boxed{5}$.",
    r"The answer is $\frac{10}{2} = \boxed{5}$.", r"The answer is~$\boxed{5}$.", "So the count is = 5.",
])
def test_the_plain_forms_of_the_same_answer_are_paid(response):
    assert judge("5", response).equivalent, response
