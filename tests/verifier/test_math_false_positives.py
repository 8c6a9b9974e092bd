"""False positives first: answers that must NEVER be judged equivalent (an RL policy that
found one would be paid for a wrong answer), then the formats and forms that must be.

Each class here was a false positive or a miss of an earlier version of the judge.
"""

from __future__ import annotations

import pytest

from verifier.math import judge


def verdict(gold: str, pred: str, **kw):
    v = judge(gold, pred, timeout_s=30, **kw)
    assert v.error is None, v
    return v


@pytest.mark.parametrize("gold, pred", [
    # a space between numbers is not multiplication
    ("12", "3 4"), ("18", r"\boxed{2 9}"), ("29", r"\boxed{2 9}"), ("6", "2 3"),
    ("12", r"The answer is 3 4."),
    # times and ratios: 12:00 is not 1:00 (both were 1/0)
    ("1:00", "12:00"), ("12:00", "1:00"), ("3:00", "3:15"), ("1", "1:0"),
    ("3:4", "12:15"), ("1", "1:00"), ("12", "12:00"), ("12:30", "25:60"), ("1:30", "2:60"),
    # words that change the value are never units (a review's finds, each paid for 3 before)
    ("3", r"\boxed{3 \text{ halved}}"), ("3", r"\boxed{3 \text{ inverse}}"), ("3", r"\boxed{\text{under } 3}"),
    ("3", r"\boxed{\text{nearly } 3}"), ("3", "The answer is 3 doubled."), ("3", "The answer is 3 sevenths."),
    ("3", "The answer is 3 lakh."), ("3", "The answer is 3 score."), ("3", r"\boxed{3 \text{ is false}}"),
    # self-contradicting answers: every side of a chain must be the answer; \in needs a variable
    ("3", r"\boxed{x = 4 = 3}"), ("4", r"\boxed{x = 3 = 4}"), ("3", r"\boxed{4 \in 3}"), ("3", r"\boxed{2+2 \in 3}"),
    # an empty interval matched every pair gold (a, b) with a >= b (read as an empty open interval)
    ("(4, 2)", r"\boxed{[1, 0]}"), ("(7,-3)", r"\boxed{[1,0)}"), ("(2,2)", r"\boxed{(3,2]}"),
    ("(3,1)", r"\boxed{5 < x < 1}"), (r"\emptyset", r"\boxed{[1,0]}"),
    # sympy's gcd/lcm read a third argument as a generator: lcm(4, 6, 7) was 12
    ("12", r"\boxed{\operatorname{lcm}(4, 6, 7)}"), ("2", r"\boxed{\gcd(4, 6, 9)}"),
    # review round 3: stacked percent signs paid for several golds; x \in 3; a list of intervals
    ("391", r"\boxed{391\%\%}"), ("3.91", r"\boxed{391\%\%}"), ("0.0391", r"\boxed{391\%\%}"),
    ("3", r"\boxed{x \in 3}"), (r"(-\infty, 2]", r"\boxed{(-\infty, 2], (-\infty, 1]}"),
    # \mathrm{e} is Euler's number, not a unit to drop
    ("1", r"\mathrm{e}+1"), ("2", r"1+\mathrm{e}"),
    # primes name other things
    ("E", "E'"), ("f(x)", "f'(x)"), ("x^2", "(x^2)'"), ("2x", "(x^2)'"),
    # no "last number anywhere in the text"; a concluding statement that hedges, lists
    # candidates or rejects a value pays none of them (a review's corpus: 40 paid)
    ("5", r"Therefore $x \geq 5$ is the solution."), ("2", "AZYUK2A"),
    ("7", "There are 7 days in a week, so I cannot tell."),
    ("7", "Final Answer: the value is not $7$."),
    ("16", "The area is 4 * 4 = 16 square units. The naive approach would give $12$."),
    ("12", "The area is 4 * 4 = 16 square units. The naive approach would give $12$."),
    ("12", "Candidates: $15$ and $12$. Both seem plausible."),
    ("12", "The possible answers are $15$ and $12$."),
    ("12", "That gives us 15 as the final answer.\n\nNote: a common mistake is to answer $12$."),
    ("12", "Therefore the total is 15.\n\nThe naive approach would give $12$, which is too large."),
    ("13/5", r"Thus, $x = \frac{26}{5}$. (If we had not excluded the invalid cases we would have "
             r"gotten $\frac{13}{5}$.)"),
    ("-88", "One might think the minimum value is $- 88$, but that ignores the constraint.\n\n"
            "**Minimum value:** -87"),
    ("4, 7", "Note that $x = 4, 7$ is only the first part.\n\nTherefore the solutions are -4, -7."),
    ("south", "Then there are 11 more steps to consider.\n\n$\\therefore$ **north**"),
    # several boxes on the gold side are all kept
    (r"\boxed{1}\boxed{2}", "2"), (r"\boxed{1}\boxed{2}", "1"),
    # a prediction listing several different answers is wrong
    ("3", r"\boxed{3} or \boxed{4}"), ("3", "The answer is 3 or 4."), ("3", r"\boxed{3, 4}"),
    # malformed answers are not read generously
    ("5", "5 +"), ("2", r"@#\$ 2 %^&"), ("12", r"\boxed{12 \cdot}"),
    # approximate answers need the mark and enough digits; exact golds stay exact
    (r"\pi", "3.14"), ("1/3", "0.333"), ("1/3", r"\approx 0.33"), ("2", r"\approx 1.99"),
    ("1.25", r"\approx 1.254"),
    # ... 6 significant digits: fewer would fit several exact answers (pi and 22/7 ~ 3.14)
    (r"\pi", r"\approx 3.14"), (r"\frac{22}{7}", r"\approx 3.14"), ("1/3", r"\approx 0.333"),
    (r"\sqrt{2}", "approximately 1.414"), (r"\frac{22}{7}", r"\approx 3.14159"),
    (r"\pi", r"\approx 3.14286"), (r"\pi", "3.14159"),
    # thousands grouping only with groups of three
    ("1000", "1 00"), ("100", "1 00"), ("10000", "10,00"),
    # base subscripts are values
    ("5", r"\boxed{110_2}"), ("101_2", "6"),
    # a bare number against a base gold is its digits in that base only: its decimal value
    # paid the question's number copied unconverted (out-of-sample check 6)
    ("101_2", "5"), ("2332_{5}", "342"), ("1001011000_{2}", "600"),
    # identities are checked at negative points too
    ("x", "|x|"), ("x", r"\sqrt{x^2}"),
    # labels do not make a wrong value right
    ("(1,2)", "(a,b)=(2,1)"), ("3", "g(x)=4"),
    # red-team reproductions (tests/verifier/test_math_policy_tricks.py generalises each):
    # a relation with a missing side names no value
    ("5", r"\boxed{\neq 5}"), ("5", r"\boxed{\le 5}"), ("5", r"\boxed{\geq 5}"),
    ("5", r"\boxed{< 5}"), ("5", r"\boxed{5 >}"), (r"\frac{1}{3}", r"\boxed{\neq 0.333333}"),
    (r"\frac{11}{12}", r"So the sum is $\boxed{\neq \frac{11}{12}}$."),
    (r"\frac{11}{12}", r"\boxed{\neq 0.916667}"),
    # math-verify reads fragments and accepts a gold inside a predicted set
    ("5", r"\boxed{\sum_{k=1}^{1} \{4, 5\}}"),
    ("37", r"\boxed{\sum_{k=1}^{1} \{" + ",".join(map(str, range(201))) + r"\}}"),
    (r"\frac{1}{3}", r"\boxed{\sum_{k=1}^{1} 0.333333}"),
    # identities are not proven by sample points where a piecewise function agrees
    ("x+1", r"\boxed{x+\max(1, x-1000)}"), ("x+1", r"\boxed{x+\max(1, x-10^{100})}"),
    ("x", r"\boxed{x + \lfloor x / 10^{90} \rfloor}"),
    ("x+1", r"\boxed{x+1+\lfloor \frac{x^2}{10^9}\rfloor}"),
    # ... nor by small points where a branch (sqrt of a square) agrees
    ("1000-x", r"\boxed{\sqrt{(x-1000)^2}}"), ("1000-x", r"\boxed{|x-1000|}"),
    # past any fixed probe range, and on the negative side only
    ("10^{15}-x", r"\boxed{\sqrt{(x-10^{15})^2}}"), ("x+1000", r"\boxed{\sqrt{(x+1000)^2}}"),
    ("y=2x+1", r"\boxed{y=2x+1+10^{-30}}"),
    # no tolerance makes a different constant equal
    ("x", r"\boxed{x+10^{-30}}"), (r"\pi", r"\boxed{\pi+10^{-40}}"),
    (r"\pi", r"\boxed{\pi(1+10^{-40})}"), (r"\sqrt{2}", r"\boxed{\sqrt{2} + e^{-100}}"),
    # an answer taken back after its sentence is no answer
    ("3", "The answer is 3. Hmm, actually I think it is 4."),
    ("3", "The answer is 3.\nWait, it should be 4."),
])
def test_never_equivalent(gold, pred):
    v = verdict(gold, pred)
    assert v.equivalent is False, v


@pytest.mark.parametrize("gold, pred", [
    # number formats
    ("10000", r"10,\!000"), ("1000", "1 000"), ("1234567", "1 234 567"), ("1000", "1\u2009000"),
    (r"\frac{7}{2}", "3 1/2"), (r"\frac{7}{2}", r"3\frac{1}{2}"), (r"-\frac{7}{2}", r"-3\frac12"),
    ("2.5", "2,5"), (r"\pi", r"\approx 3.14159"), ("1/3", r"\approx 0.333333"),
    (r"\sqrt{2}", "approximately 1.41421"), (r"\frac{22}{7}", r"\approx 3.14286"), ("50\\%", "0.5"), ("50", "50\\%"),
    (r"30^\circ", "30 degrees"), ("12:00", "12:00"), ("3:15 pm", "3:15 p.m."),
    # a ratio gold makes a time-shaped prediction a ratio (review finding: 19 of 62 rejected)
    ("6:7", "12:14"), ("1:3", "4:12"), ("3:4", "12:16"), ("1:9", "5:45"), ("8:7", "32:28"),
    # more of a review's correct answers that were rejected
    ("488", r"Final Answer: The final answer is $\$488$. I hope it is correct."), ("no", r"\boxed{\text{NO}}"),
    ("3", r"\boxed{\log_2 8}"), ("3", r"{\bf 3}"), ("3", r"\textstyle{3}"), ("3", r"\num{3}"),
    ("-3", "\u20103"), ("-3", "\ufe633"), ("1/2", "\u00bd"), ("4", "2\u00b2"), ("34", "3\u200b4"),
    ("4", r"\boxed{x = 2+2 = 4}"), ("x=4", r"x = 2 \cdot 2 = 4"), ("116", r"\boxed{116 km/h}"), ("9.8", r"9.8 m/s^2"),
    ("84", r"\boxed{\operatorname{lcm}(4, 6, 7)}"), ("1", r"\boxed{\gcd(4, 6, 9)}"), ("60", r"\boxed{\operatorname{lcm}(4,6,10)}"),
    # GSM8K phrasings
    ("18", "**Answer:** **18**"), ("18", "The answer is 18 eggs."),
    ("18", "Janet sells 16 - 3 - 4 = 9 eggs.\n#### 18"), ("18", "The answer is $18."),
    ("18", "Final Answer: The final answer is 18. I hope it is correct."),
    ("7", "Final Answer: the largest value is 7."), ("18", "Answer: there are 18 eggs in total."),
    # forms
    ("Devon", "Devon"), ("Devon", r"\text{Devon}"), ("(1,2)", "(a,b)=(1,2)"), ("2", "g(x)=2"),
    ("3", "x = 3"), (r"\frac{3}{2}", r"1+\cfrac{1}{2}"), ("6", r"\sum_{k=1}^{3} k"),
    ("101_2", "101"), ("101_2", "101_{2}"), ("5", r"\boxed{101_2}"), ("(1,2)", "(1; 2)"),
    (r"\frac{1}{2}", r"\sin 30^\circ"), (r"\frac{\sqrt{3}}{2}", r"\cos(30^{\circ})"),
    ("[1, 2)", r"x \in [1, 2)"), (r"\{1, 2\}", r"\{2, 1\}"),
    (r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", r"\begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}"),
    (r"\boxed{1}\boxed{2}", r"\boxed{2}, \boxed{1}"), ("1, 2", r"\boxed{1} and \boxed{2}"),
    (r"\frac{x^2-1}{x-1}", "x+1"),
    (r"\langle 1,2 \rangle", "(1,2)"), ("5", r"5\$"), (r"f^{-1}(x) = 2x+1", "2x+1"),
    (r"\sin x", r"\cos(90^\circ - x)"), ("1", r"\sin^2 30^\circ + \cos^2 30^\circ"),
])
def test_equivalent(gold, pred):
    v = verdict(gold, pred)
    assert v.equivalent is True, v


@pytest.mark.parametrize("gold, pred, expected", [
    ("6", "six", True), (r"\text{four}", "4", True), ("6", "sixty", False),
    (r"0.\overline{3}", r"\frac{1}{3}", True), (r"0.1\overline{6}", r"\frac{1}{6}", True),
    (r"0.\overline{3}", "0.3", False),
])
def test_number_words_and_repeating_decimals(gold, pred, expected):
    assert verdict(gold, pred).equivalent is expected


@pytest.mark.parametrize("pred", [
    # notation the second parser (math-verify) would drop, reading the rest as the answer
    r"\boxed{\not 5}", r"\boxed{\neg 5}", r"\boxed{\cancel{6} 5}", r"\boxed{\mathbb{Z} 5}",
    r"\boxed{\unknowncmd 5}", r"\boxed{\operatorname{foo} 5}", r"\boxed{\sum 5}",
    r"\boxed{\lim 5}", r"\boxed{\tilde 5}", r"\boxed{\dot 5}", r"\boxed{\dots 5}",
    # words after a number that change its meaning are not units
    r"\boxed{5 hundred}", r"\boxed{5 halves}", r"\boxed{5 \text{ not }}", "5 times 6",
    r"\boxed{5 \text{ or more}}", "The answer is 5 or more.",
])
def test_an_adversary_cannot_wrap_the_gold_value_in_noise(pred):
    v = verdict("5", pred)
    assert v.equivalent is False, v


@pytest.mark.parametrize("pred", [
    r"\boxed{x_}", "The answer is $x_$.", "#### n_", "\\boxed{3" + "!" * 2000 + "}",
    "\\boxed{391" + "\\%" * 1200 + "}", "\\boxed{391" + "%" * 1200 + "}",
    "\\boxed{" + "F" * 4990 + "_{16}}", "\\boxed{" + "V" * 4000 + "_{32}}",
])
def test_malformed_or_degenerate_answers_are_wrong_not_internal_errors(pred):
    # Each was an internal error (IE: the RL client drops the sample instead of scoring 0).
    v = verdict("391", pred)
    assert v.equivalent is False and v.error is None, v


@pytest.mark.parametrize("gold, pred, equal", [
    (r"(-\infty, 3]", r"\boxed{[-\infty, 3]}", False), (r"(-\infty, \infty)", r"\boxed{[-\infty, \infty]}", False),
    (r"(-\infty,1)\cup(2,\infty)", r"\boxed{(-\infty,1)\cup(2,\infty]}", False),
    (r"(-\infty, 3]", r"\boxed{x \le 3}", True), (r"(-\infty, \infty)", r"\boxed{\mathbb{R}}", True),
    (r"[-\infty, 3]", r"\boxed{[-\infty, 3]}", True),
])
def test_a_closed_bracket_at_infinity_is_not_the_open_one(gold, pred, equal):
    assert verdict(gold, pred).equivalent is equal


@pytest.mark.parametrize("gold, pred", [
    # two unions offered as alternatives: their union is the gold when one holds the other
    (r"(-\infty, -3] \cup (-2, \infty)", r"\boxed{(-2, \infty) \cup (-\infty, -3] \text{ or } (-\infty, -3) \cup (-2, \infty)}"),
    (r"(-\infty, -3) \cup (5, \infty)", r"The answer is $(5, \infty) \cup (-\infty, -3)$ or $(-\infty, -4) \cup (5, \infty)$."),
    (r"(-\infty, 2) \cup [4, \infty)", r"\boxed{[4, \infty) \cup (-\infty, 2)} or \boxed{(-\infty, 2)}"),
    (r"(-\infty, 0) \cup [6, \infty)", r"The answer is $[6, \infty) \cup (-\infty, 0)$ or $(-\infty, 0)$."),
    # a comma list read as a union lists disjoint pieces; an extra piece inside another is a hedge
    (r"(-\infty,1)\cup(2,\infty)", r"\boxed{(-\infty,1), (2,\infty), (3,4)}"),
    # a revision to another word answer written in math
    ("False", r"The answer is False. Actually, no, it is $\text{True}$."),
    ("purple", r"The answer is purple. Wait, actually it should be $\text{blue}$."),
    ("Chen", r"The answer is Chen. Actually, no, it is $\mathrm{Alice}$."),
])
def test_hedges_between_regions_and_revisions_in_math_are_not_paid(gold, pred):
    assert verdict(gold, pred).equivalent is False


@pytest.mark.parametrize("gold, pred", [
    (r"(-\infty,1)\cup(2,\infty)", r"\boxed{(2,\infty), (-\infty,1)}"),
    (r"(-\infty,1)\cup(2,\infty)", r"\boxed{x<1 \text{ or } x>2}"),
    ("purple", r"The answer is purple. Wait, let me check: it is $\text{purple}$."),
])
def test_a_union_listed_and_a_confirmed_word_are_still_paid(gold, pred):
    assert verdict(gold, pred).equivalent is True


@pytest.mark.parametrize("pred", [
    # a hostile review's: a box that is an operand of notation around it is not the answer
    r"$\boxed{3}.5$", r"$\boxed{3}\,000$", r"\boxed{3},000", r"$\boxed{3}!$", r"$0.\boxed{3}$", r"$x\boxed{3}$",
    r"\boxed{3}x", r"$x \neq \boxed{3}$", r"$x > \boxed{3}$", r"The answer is definitely not $\boxed{3}$; it is 4.",
    r"$\sqrt{\boxed{3}}$", r"\sqrt{ \boxed{3} }", r"$\frac{1}{\boxed{3}}$", r"$10^{\boxed{3}}$", r"$(\boxed{3})^2$",
    r"( \boxed{3} )^2", r"$\left( \boxed{3} \right)^{2}$", r"\boxed{3}\pi", r"\boxed{3} \pi", r"\boxed{3}\sqrt{2}",
    r"\boxed{3}\frac{1}{2}", r"\(-\boxed{3}\)", "1 +" + " \\," * 300 + r"\boxed{3}", r"isn't \boxed{3}",
])
def test_a_box_inside_notation_is_no_answer(pred):
    assert verdict("3", pred).equivalent is False


@pytest.mark.parametrize("pred", [
    r"\boxed{3}!", r"The answer is \boxed{3}! Great.", r"\boxed{3} cm", r"$\boxed{3}$ apples", r"\[\boxed{3}\]",
    r"\text{Answer: }\boxed{3}", r"\boxed{3}\text{ cm}", r"\boxed{3}^\circ", r"is \boxed{3} (since 1+2=3)",
    r"\therefore\boxed{3}", r"**Answer:** $\boxed{3}$", r"\boxed{3}\quad\text{(final)}", r"The answer is (\boxed{3}).",
    "Answer:\n\n$$\n\\boxed{3}\n$$", r"\boxed{3}\\", r"$\Rightarrow \boxed{3}$", r"final answer: \(\boxed{3}\)",
])
def test_a_box_standing_alone_is_the_answer(pred):
    assert verdict("3", pred).equivalent is True


@pytest.mark.parametrize("pred", [
    # the second parser reads a fragment of what it cannot parse (hostile review 2): what it
    # dropped (an exponent, a variable, a constant, a function) makes its "equal" void
    r"\cup 5^{3}", r"\cup 5 + y", r"\cup 5\pi", r"5 + x\operatorname{sech} y", r"\operatorname{sech} 5",
    r"5\pi\operatorname{sech}", r"\cup 5",
])
def test_a_fragment_the_second_parser_read_is_not_the_answer(pred):
    assert verdict("5", rf"\boxed{{{pred}}}").equivalent is False


def test_a_bound_variable_is_not_lost():
    assert verdict("5050", r"\boxed{\sum_{k=1}^{100} k}").equivalent is True


@pytest.mark.parametrize("gold, pred, equal", [
    # a subscripted name is a sequence's term, not a number in a base (hostile review 2)
    ("10", r"\boxed{a_{11}}", False), ("33", r"\boxed{x_{36}}", False), ("12", r"\boxed{c_{13}}", False),
    ("10", r"\boxed{A_{11}}", False), ("255", r"\boxed{FF_{16}}", True), ("26", r"\boxed{1A_{16}}", True),
    ("5", r"\boxed{101_2}", True),
])
def test_base_subscripts_need_digits(gold, pred, equal):
    assert verdict(gold, pred).equivalent is equal


@pytest.mark.parametrize("pred", [
    "5 quadrillion", r"5 \text{ sextillion}", "5 googol", "5 tens", "5 myriad", "5 grand", r"5\text{ bn}",
    "5 minimum", "5 upwards", "5 gazillion",
])
def test_more_words_that_change_the_value(pred):
    assert verdict("5", f"The answer is {pred}.").equivalent is False


def test_infinity_to_the_power_zero_is_indeterminate():
    assert verdict("1", r"\boxed{\infty^0}").equivalent is False
    assert verdict("1", r"\boxed{(-\infty)^{0}}").equivalent is False
    assert verdict("1", r"\boxed{2^0}").equivalent is True
