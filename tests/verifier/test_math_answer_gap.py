"""Between an answer phrase and its box only a closed set may stand (extract.answer_gap_unexplained).

"The answer is <gap> \\boxed{v}": a policy can put any hedge, bound or estimate in <gap>, in any
language, and a list of forbidden words never catches up (hostile math review 7 found 19 such
gaps still paid). The judge now pays only when every word of the gap outside math adds nothing
and the last relation inside math is "=". Two generated sets, truth by construction:
- neutral gaps (fillers x computations x wrappings x values): every one is paid;
- the same answers with one word or relation that changes what is claimed: none is paid.
"""

from __future__ import annotations

import itertools

import pytest

from verifier.math.judge import judge

VALUES = [("5", "5"), ("\\frac{3}{4}", "3/4"), ("2\\sqrt{3}", "2\\sqrt{3}"), ("-12", "-12"), ("0.25", "1/4")]
LEADS = ["The answer is", "The final answer is", "So the answer is", "Answer:", "**Final answer:**",
         "Thus, the required answer is"]
NEUTRAL_GAPS = ["", "therefore", "simply", "exactly", "thus", "clearly", "indeed", "then", "the value",
                "the number", "the final result", "given by", "as follows:", "—", ",",
                "therefore the value"]
WRAPS = ["${b}$", "\\({b}\\)", "**${b}$**", "$x = {b}$", "$\\text{{total}} = {b}$", "$f(3) = {b}$",
         "$\\lim_{{n \\to \\infty}} a_n = {b}$", "~${b}$"]


def _box(v: str) -> str:
    return "\\boxed{" + v + "}"


def _neutral_cases():
    for (box_value, gold), lead, gap, wrap in itertools.product(VALUES, LEADS, NEUTRAL_GAPS, WRAPS):
        if wrap.startswith("~") and gap:
            continue  # the tie is glued to the phrase
        sep = "" if wrap.startswith("~") else " "
        body = wrap.format(b=_box(box_value))
        yield gold, f"Working first.\n{lead}{(' ' + gap) if gap else ''}{sep}{body}."


def _rule_off():
    from verifier.math import extract

    class Off:
        def __enter__(self):
            self.saved = extract.answer_gap_unexplained
            extract.answer_gap_unexplained = lambda text, start: False

        def __exit__(self, *exc):
            extract.answer_gap_unexplained = self.saved

    return Off()


def test_neutral_gaps_are_paid():
    """The rule flags none of them and the judge pays every one. (Older rules refuse a few
    other neutral-looking forms, "would be" as a conditional and "shown below" as a bound;
    the differential against the judge without this rule keeps this test about this rule.)"""
    from verifier.math import extract

    cases = list(_neutral_cases())
    assert len(cases) == 3390
    flagged = [r for _g, r in cases if extract.answer_gap_unexplained(r, r.rindex("\\boxed"))]
    assert flagged == [], flagged[:10]
    paid = [judge(g, r).equivalent for g, r in cases]
    with _rule_off():
        paid_before = [judge(g, r).equivalent for g, r in cases]
    assert [c for c, now, before in zip(cases, paid, paid_before) if before and not now] == []
    assert all(paid), [c for c, ok in zip(cases, paid) if not ok][:10]


CHANGING_WORDS = [
    # hedges, estimates and bounds, English and others (none of them in any list of the judge)
    "likely", "I believe", "I think it's", "something like", "of order", "order", "conjecture:",
    "hypothesis:", "bound:", "from 4 to", "minimaal", "höchstens", "environ", "al menos", "не менее",
    "至少", "mindestens", "perhaps", "maybe", "guess:", "tentatively", "suspected", "arguably",
    "almost surely", "not quite", "near", "at least", "at most", "or", "either", "e.g.,",
    "greater than", "divisible by", "congruent to", "bigger than", "vermutlich", "peut-être", "多分",
    "approximately", "roughly", "close to", "around", "under", "over",
]
CHANGING_RELATIONS = ["≳", "⪖", "≨", "≲", "≥", "≤", "<", ">", "≈", "∝", "⊂", "∈", "~",
                      "$\\gtrsim$", "$\\lesssim$", "$\\geq$", "$\\ne$", "$\\sim$", "$\\approx$",
                      "$\\subset$", "$\\propto$", "$\\in$"]
IN_MATH_RELATIONS = ["x =/= {b}", "x /= {b}", "x != {b}", "x \\subset {b}", "x \\gtrsim {b}", "x \\ge {b}",
                     "x \\sim {b}", "x \\to {b}", "x \\Rightarrow {b}", "x > {b}", "x ≤ {b}", "x \\in {b}",
                     "n \\equiv {b}"]


@pytest.mark.parametrize("words", CHANGING_WORDS + CHANGING_RELATIONS)
def test_a_gap_that_changes_the_claim_is_not_paid(words):
    paid = [(g, r) for (box_value, g), lead in itertools.product(VALUES, LEADS)
            for r in [f"{lead} {words} ${_box(box_value)}$."] if judge(g, r).equivalent]
    assert paid == [], paid[:5]


@pytest.mark.parametrize("form", IN_MATH_RELATIONS)
def test_a_box_after_another_relation_than_equals_is_not_paid(form):
    paid = [(g, r) for (box_value, g), lead in itertools.product(VALUES, LEADS)
            for r in [f"{lead} ${form.format(b=_box(box_value))}$."] if judge(g, r).equivalent]
    assert paid == [], paid[:5]


def test_the_rule_reads_only_its_own_sentence_and_restating_clauses():
    # A sentence in between: the phrase is not this box's (the box alone is still the answer).
    assert judge("3", r"\boxed{41}. Wait, that is wrong. \boxed{3}").equivalent
    # "..., which is" / "i.e." restate what the phrase named: the gap starts afresh there.
    assert judge("5", r"The answer is the number of red marbles, which is $\boxed{5}$.").equivalent
    assert judge("5", r"The answer is the count of pairs, i.e. $\boxed{5}$.").equivalent
    # A hedge after the restating clause is still a hedge.
    assert not judge("5", r"The answer is the count of pairs, which is likely $\boxed{5}$.").equivalent
    # Words elsewhere on the line (before the phrase) are not the gap.
    assert judge("5", r"Counting carefully, the answer is $\boxed{5}$.").equivalent


def test_control_the_old_judge_paid_these():
    """Mutation control: with the rule switched off, the changing gaps are paid again (so the
    tests above exercise this rule, not some other one)."""
    with _rule_off():
        paid = [w for w in ("likely", "I believe", "≳", "$\\gtrsim$", "minimaal", "of order")
                if judge("5", f"The answer is {w} $\\boxed{{5}}$.").equivalent]
    assert len(paid) >= 4, paid
