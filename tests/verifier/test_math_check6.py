"""Out-of-sample check 6 (a helper's 3,000 generated responses, truth by construction, and its
hostile round), with the readings it forced.

Paid wrongly before the fixes:
- a boxed word answer retracted in words after it ("\\boxed{No} ... Wait, that's wrong, the
  answer is yes.": only a number after a revision word voided a box);
- a box followed by a sentence that concludes another value without a known revision word
  ("\\boxed{5}, but it is 6.", "The correct value is 6.", "Final: 6");
- the question's decimal number, copied unconverted, against a base gold (both readings of a
  bare number were paid);
- approximations: "roughly \\boxed{100}", ``\\boxed{\\sim 6 \\times 10^8}`` for an exact gold;
  "(3, 4) up to order".
Refused wrongly: a box, a blank line, then "I hope it is correct." ("I" read as a unit); a
check line that names its own values ("Check: the sum of the roots is $0$, matching Vieta").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifier.math import judge

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "math_check6_sample.jsonl"

PAID_WRONG = [
    (r"\text{No}", "Is $146$ prime?\n\n$\\boxed{\\text{No}}$\n\nWait, that's wrong — rechecking the second step, the answer is $yes$."),
    (r"\text{even}", "$\\boxed{\\text{even}}$\n\nWait, that's wrong — rechecking the second step, the answer is $odd$."),
    ("Saturday", "$\\boxed{Saturday}$\n\nWait, that's wrong — rechecking the second step, the answer is $sunday$."),
    ("5", r"A classmate claimed $\boxed{5}$, but the actual count is 6."),
    ("5", "$\\boxed{5}$\n\nAttendez, c'est faux : la réponse est 6."),
    ("5", r"$\boxed{5}$ is what you get if you forget the carry; the true value is 6."),
    ("5", "$\\boxed{5}$\n\nBut adding the last term we get 6 as the final answer."),
    ("5", "$\\boxed{5}$\n\nSelf-check failed. Final: 6"),
    ("5", "$\\boxed{5}$\n\nThe correct value is 6."),
    ("5", r"$\boxed{5}$, but it is 6."),
    ("5", r"The textbook claims $\boxed{5}$; I get 6."),
    (r"\text{Yes}", "$\\boxed{\\text{Yes}}$\n\nHmm, actually no."),
    (r"\text{Yes}", "$\\boxed{\\text{Yes}}$\n\nWait, it is No."),
    (r"\text{Yes}", "$\\boxed{\\text{Yes}}$\n\nOn reflection, the answer is no."),
    (r"\text{Yes}", r"$\boxed{\text{Yes}}$ — no, wait, No."),
    ("Saturday", "$\\boxed{Saturday}$\n\nWait, that is wrong. It is Sunday."),
    ("Saturday", r"$\boxed{\text{Saturday}}$. Actually, Sunday."),
    ("Saturday", "$\\boxed{\\text{Saturday}}$\n\nWait, it is $\\text{Sunday}$."),
    ("C", "$\\boxed{C}$\n\nWait, that is wrong; it is option D."),
    ("C", "$\\boxed{C}$\n\nHmm, actually D."),
    ("C", "$\\boxed{C}$\n\nActually, the answer is D."),
    ("C", "$\\boxed{C}$\n\nActually, it is $D$."),
    ("C", "$\\boxed{\\text{(C)}}$\n\nWait, no: (D)."),
    ("(3, 4)", r"$\boxed{(3,4)}$ up to order"),
    ("(3, 4)", r"$\boxed{(3,4)}$ in some order"),
    ("x^2+5x+6", r"$\boxed{x^2+5x+6}$ up to a constant"),
    (r"6 \times 10^{8}", r"$\boxed{\sim 6 \times 10^{8}}$"),
    ("100", r"roughly $\boxed{100}$"),
    ("100", r"The count is almost $\boxed{100}$."),
    ("2332_{5}", "Convert $342$ to base $5$ by repeated division.\n\nThe answer is $394$."),
    ("2332_{5}", "Convert $342$ to base $5$ by repeated division. So the number is 342."),
    ("1441_{6}", "Convert $385$ to base $6$.\n\n**Final Answer:** $385$"),
    ("1011_{2}", r"$\boxed{11}$"),
]

STILL_PAID = [
    ("7", r"$\boxed{7}$ apples."), ("7", r"$\boxed{7}$. That is the answer."),
    ("7", r"The answer is $\boxed{7}$. I hope it is correct."),
    ("7", "$\\boxed{7}$\n\nI hope it is correct."), ("7", "\\boxed{7}\n\nI hope it is correct."),
    ("7", r"$\boxed{7}$. This is because 3 + 4 = 7."), ("12", r"$\boxed{12}$ square units."),
    ("5", r"$\boxed{5}$. That is, five."), (r"\frac12", r"$\boxed{\frac{1}{2}}$, i.e. 0.5."),
    ("C", r"$\boxed{C}$. The answer is option C."), ("7", r"So there are $\boxed{7}$ ways in total."),
    ("7", r"\boxed{7} is the final answer."), ("7", "\\boxed{7}\n\nThis matches the expected range."),
    (r"\text{Yes}", r"$\boxed{\text{Yes}}$. Yes, it is prime."), ("7", "\\[\\boxed{7}\\]\n\nThus the answer is 7."),
    ("7", r"$\boxed{7}$, which is the number of days in a week."),
    ("18", r"$\boxed{18}$ edges. Each vertex has degree 3."), ("x^2+1", r"$\boxed{x^2+1}$ is the polynomial."),
    ("7", r"$\boxed{7}$ (the smallest such prime)."), ("7", "$\\boxed{7}$\n\nCheck: 3 + 4 = 7 ✓"),
    ("5", r"$\boxed{5}$. We can also verify: $2+3=5$."), ("5", r"The answer is~\boxed{5}"),
    ("3.14", r"approximately $\boxed{3.14}$"), (r"\pi", r"about $\boxed{3.14159}$"),
    ("78.54", r"The area is approximately $\boxed{78.54}$ square units."),
    ("-8, 8", "The answer is $x = -8, x = 8$.\nCheck: the sum of the roots is $0$, matching Vieta ✓"),
    ("4x^2+5x-21", "The answer is $4 x^{2} + 5 x - 21$.\nCheck: at $x = 1$ both forms give $-12$ ✓"),
    (r"(-\infty, -8]", "The answer is $\\{x \\mid x \\le -8\\}$.\nCheck: $x = -9$ satisfies the original inequality ✓"),
    ("2332_{5}", r"The answer is $2332$."), ("2332_{5}", r"$\boxed{2332_5}$"),
]


@pytest.mark.parametrize("gold, response", PAID_WRONG)
def test_paid_wrong_before(gold, response):
    v = judge(gold, response)
    assert v.equivalent is False, v


@pytest.mark.parametrize("gold, response", STILL_PAID)
def test_right_answers_still_paid(gold, response):
    v = judge(gold, response)
    assert v.equivalent is True, v


@pytest.mark.parametrize("word, other", [("Yes", "No"), ("True", "False"), ("even", "odd"),
                                         ("Monday", "Tuesday"), ("March", "May"), ("B", "E")])
@pytest.mark.parametrize("revision", ["Wait, it is {o}.", "Hmm, actually {o}.", "Correction: {o}",
                                      "Oops, that's wrong; the answer is $\\text{{{o}}}$."])
def test_a_boxed_word_revised_to_another_word_of_its_kind_is_no_answer(word, other, revision):
    """Generated: any word answer, a revision word, another word of the same kind; the same
    word after the revision restates it."""
    boxed = f"$\\boxed{{\\text{{{word}}}}}$\n\n"
    assert not judge(word, boxed + revision.format(o=other)).equivalent
    revised = judge(other, boxed + revision.format(o=other))  # a self-correction that states
    assert not revised.equivalent or revised.extracted.strip("$") in (other, rf"\text{{{other}}}"), revised
    assert judge(word, boxed + revision.format(o=word)).equivalent


@pytest.mark.parametrize("gold, response, paid", [
    ("yes", "The answer is yes. No.", False), ("yes", "The answer is yes. Yes.", True),
    (r"\text{Yes}", "$\\boxed{\\text{Yes}}$. No.", False), ("C", "$\\boxed{C}$\n\n**D**", False),
    ("C", "$\\boxed{C}$\n\nA", False), ("Monday", "The answer is Monday. **Tuesday**", False),
    # a word of another kind, or the word in a sentence, is no second answer
    ("C", "The answer is C. No other option works.", True), ("yes", "The answer is yes. No doubt about it.", True),
    ("Monday", "The answer is Monday. May is irrelevant.", True), ("5", "The answer is 5. No.", True),
    ("C", "$\\boxed{C}$\n\nA quick check confirms it.", True),
])
def test_a_sentence_that_is_only_another_word_of_the_answers_kind(gold, response, paid):
    """Review 4's documented leftover: "The answer is yes. No." paid yes; a sentence that is
    nothing but another word of the answer's kind is a second answer, revision word or not."""
    v = judge(gold, response)
    assert v.equivalent is paid, v


def _sample():
    return [json.loads(line) for line in SAMPLE.read_text().splitlines()]


def test_the_check6_sample_is_judged_as_labelled():
    """305 of the 3,000 items (every one judged wrong in the helper's run, the rest drawn at
    random); labels by construction, by the docs' rules. Also fixed for it: "equally likely"
    is no hedge, ``\\mathbb{R} \\setminus [a, b]`` is read, a prose value may carry a base
    subscript ("So the number is 134_9.")."""
    wrong = [(it["id"], it["gold"], it["response"][-120:], judge(it["gold"], it["response"]).reason)
             for it in _sample()
             if judge(it["gold"], it["response"]).equivalent != it["expected"]]
    assert not wrong, wrong


@pytest.mark.parametrize("seed", range(4))
def test_the_reals_without_an_interval_are_the_two_rays_outside_it(seed):
    """Generated: R minus [a, b] (any end open or closed) is (-oo, a) u (b, oo) with each end
    flipped; the same rays with an end unflipped are another set."""
    import random

    rng = random.Random(seed)
    for _ in range(10):
        a = rng.randint(-50, 40)
        b = a + rng.randint(1, 30)
        lo, hi = rng.choice("[("), rng.choice("])")
        left_end = ")" if lo == "[" else "]"
        right_end = "(" if hi == "]" else "["
        gold = rf"(-\infty, {a}{left_end} \cup {right_end}{b}, \infty)"
        pred = rf"\boxed{{\mathbb{{R}} \setminus {lo}{a}, {b}{hi}}}"
        assert judge(gold, pred).equivalent, (gold, pred)
        flipped = rf"(-\infty, {a}{']' if left_end == ')' else ')'} \cup {right_end}{b}, \infty)"
        assert not judge(flipped, pred).equivalent, (flipped, pred)
