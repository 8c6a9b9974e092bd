"""Between an answer phrase and its box: evidence refuses, unknown words do not (extract.answer_gap_unexplained).

"The answer is <gap> \\boxed{v}": a hedge, a bound or a relation anywhere in <gap> makes the box
no answer (hostile math review 7 found such gaps paid when they were not right next to the box).
A first version refused every word outside a closed list of neutral ones; an out-of-sample probe
(751 correct, natural final lines written by a helper, math-verify side by side) showed it
refused 11 % of them ("consequently", "the fraction", "going to be", "Answer: the area is"), so
only evidence refuses now. Three generated sets, truth by construction:
- neutral gaps, including the probe's kinds of words (fillers x computations x wrappings x
  values): every one is paid, and the rule adds no refusal to the judge without it;
- the same answers with a hedge, bound or relation in the gap: none is paid;
- in math, a relation other than "=" in the last step before the box: not paid; a derivation
  ("2x = 10 \\implies x = \\boxed{5}") is.
"""

from __future__ import annotations

import itertools

import pytest

from verifier.math.judge import judge

VALUES = [("5", "5"), ("\\frac{3}{4}", "3/4"), ("2\\sqrt{3}", "2\\sqrt{3}"), ("-12", "-12"), ("0.25", "1/4")]
LEADS = ["The answer is", "The final answer is", "So the answer is", "Answer:", "**Final answer:**",
         "Thus, the required answer is", "So the answer would be"]
NEUTRAL_GAPS = ["", "therefore", "simply", "exactly", "thus", "clearly", "indeed", "then", "the value",
                "the number", "the final result", "given by", "as follows:", "—", ",",
                "therefore the value",
                # kinds of words an out-of-sample probe wrote (none in any list of the judge)
                "consequently", "in fact", "still", "accordingly", "evidently", "of course,",
                "going to be", "seen to be", "the fraction", "the interval", "the ordered pair",
                "the set", "the matrix", ", in simplest form,", "the expression", "written as"]
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
    """The rule flags none of them and the judge pays every one; the differential against the
    judge without this rule keeps the test about this rule."""
    from verifier.math import extract

    cases = list(_neutral_cases())
    assert len(cases) > 7000
    flagged = [r for _g, r in cases if extract.answer_gap_unexplained(r, r.rindex("\\boxed"))]
    assert flagged == [], flagged[:10]
    paid = [judge(g, r).equivalent for g, r in cases]
    with _rule_off():
        paid_before = [judge(g, r).equivalent for g, r in cases]
    assert [c for c, now, before in zip(cases, paid, paid_before) if before and not now] == []
    assert all(paid), [c for c, ok in zip(cases, paid) if not ok][:10]


CHANGING_WORDS = [
    # hedges, estimates and bounds, English and others (none of them in any list of the judge)
    "likely", "I believe", "I think it's", "something like", "of order", "conjecture:",
    "hypothesis:", "bound:", "from 4 to", "minimaal", "höchstens", "environ", "al menos", "не менее",
    "至少", "mindestens", "perhaps", "maybe", "guess:", "tentatively", "suspected", "arguably",
    "not quite", "near", "at least", "at most", "or", "either", "e.g.,",
    "greater than", "divisible by", "congruent to", "bigger than", "vermutlich", "peut-être", "多分",
    "approximately", "roughly", "close to", "around", "under", "over",
]
CHANGING_RELATIONS = ["≳", "⪖", "≨", "≲", "≥", "≤", "<", ">", "≈", "∝", "⊂", "∈", "~",
                      "$\\gtrsim$", "$\\lesssim$", "$\\geq$", "$\\ne$", "$\\sim$", "$\\approx$",
                      "$\\subset$", "$\\propto$", "$\\in$"]
IN_MATH_RELATIONS = ["x =/= {b}", "x /= {b}", "x != {b}", "x \\subset {b}", "x \\gtrsim {b}", "x \\ge {b}",
                     "x \\sim {b}", "x > {b}", "x ≤ {b}", "x \\in {b}", "n \\equiv {b}", "x ≥ = {b}",
                     "x \\ge 4 = {b}", "x \\eqslantgtr {b}", "2x = 10 \\implies x \\ge {b}"]


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


@pytest.mark.parametrize("response", [
    r"The answer is $2x = 10 \implies x = \boxed{5}$.", r"The answer is $x^2 = 25,\ x > 0 \Rightarrow x = \boxed{5}$.",
    r"The answer is $P(X \le 3) = \boxed{5}$.", r"The answer is $\lim_{n \to \infty} a_n = \boxed{5}$.",
    r"**Answer:** The area is $\boxed{5}$ square units.", r"Answer: the number of handshakes is $\boxed{5}$.",
    r"So the answer is that the slope is $\boxed{5}$.", r"The answer would therefore be $\boxed{5}$.",
])
def test_derivations_and_stating_sentences_are_paid(response):
    assert judge("5", response).equivalent, response


def test_the_rule_reads_only_its_own_sentence_and_restating_clauses():
    # A sentence in between: the phrase is not this box's (the box alone is still the answer).
    assert judge("3", r"\boxed{41}. Wait, that is wrong. \boxed{3}").equivalent
    # "..., which is" / "i.e." restate what the phrase named ...
    assert judge("5", r"The answer is the number of red marbles, which is $\boxed{5}$.").equivalent
    assert judge("5", r"The answer is the count of pairs, i.e. $\boxed{5}$.").equivalent
    # ... and a hedge before or after them is still in the gap (a review's bypass).
    assert not judge("5", r"The answer is the count of pairs, which is likely $\boxed{5}$.").equivalent
    assert not judge("5", r"The answer is at least the number, which is \boxed{5}.").equivalent
    assert not judge("5", r"The answer is likely, i.e., \boxed{5}.").equivalent
    # A box that opens its own line still has the phrase of the line before (a review's bypass).
    assert not judge("5", "The answer is at least\n\\boxed{5}").equivalent
    assert judge("5", "The answer is\n\\boxed{5}").equivalent
    # Words elsewhere on the line (before the phrase) are not the gap.
    assert judge("5", r"Counting carefully, the answer is $\boxed{5}$.").equivalent


def test_control_the_old_judge_paid_these():
    """Mutation control: with the rule switched off, the changing gaps are paid again (so the
    tests above exercise this rule, not some other one)."""
    with _rule_off():
        paid = [w for w in ("likely", "I believe", "≳", "$\\gtrsim$", "minimaal", "of order")
                if judge("5", f"The answer is {w} $\\boxed{{5}}$.").equivalent]
    assert len(paid) >= 4, paid
