"""Model-style endings (an independent corpus of 3,600 responses, verdicts by construction).

Before: 44 wrong answers paid (the last math span anywhere was the answer, so a value the
response rejected after its real answer, one from its reasoning, or one of two uncommitted
candidates was paid) and 413 right answers refused (prose conclusions, notes after the
answer, checks, ``$$= V$$``, ``$\\therefore$``, currency dollars, option letters with values,
Unicode roots). Each case below is one of those forms; the gold is always the value paid or
refused, so a wrong verdict here is the old behaviour.
"""

from __future__ import annotations

import pytest

from verifier.math import judge

PAID_BEFORE = [
    # uncommitted candidates
    ("12", "The possible answers are $15$ and $12$."),
    ("12", "Candidates: $15$ and $12$. Both seem plausible."),
    (r"\frac{\sqrt{2}}{2}", r"The possible answers are $\frac{2}{2}$ and $\dfrac{\sqrt{2}}{2}$."),
    ("23.25", r"The possible answers are $23\frac{1}{4}$ and 23.35."),
    ("yellow", r"Candidates: $\text{blue}$ and $\textbf{yellow}$. Both seem plausible."),
    # a hedge after a phrase answer
    (r"\text{yellow}", "The answer is *yellow*. Alternatively, it might be blue."),
    ("676", "The answer is $1352. Alternatively, it might be 676 dollars."),
    ("C", "The answer is **C**. Alternatively, it might be **(A)**."),
    ("1746", "The answer is $3492. Alternatively, it might be $1746.00."),
    # a value rejected after the answer
    (r"\frac{1}{3}", "**Slope:** $-\\frac{1}{3}$\n\nNote: a common mistake is to answer $\\dfrac{1}{3}$."),
    ("201_{3}", "The result is $202_3$, which is our answer.\n\nNote: a common mistake is to answer $201_{3}$."),
    (r"5\sqrt{10}", "= 6√10 (If we had not excluded the invalid cases we would have gotten $5\\cdot\\sqrt{10}$.)"),
    ("-79", "Therefore,\n$$\nb = -80.\n$$\n\nNote: a common mistake is to answer $- 79$."),
    (r"\frac{15}{8}", "Therefore,\n$$\nP = -\\frac{15}{8}.\n$$ (If we had not excluded the invalid cases "
                      "we would have gotten $\\frac{15}{8}$.)"),
    (r"4 + \sqrt{3}", "Therefore the largest root is $4\\sqrt{3}$.\n\nThe naive approach would give "
                      "$4 + \\sqrt{3}$, which is too large."),
    ("31\\pi", "That gives us $32\\pi$ as the final answer. (If we had not excluded the invalid cases "
               "we would have gotten $31 \\pi$.)"),
    ("20", "It is $25\\%$.\n\nNote: a common mistake is to answer $20 \\%$."),
    (r"\frac{5}{4}", "= 6/4\n\nThe naive approach would give $\\frac54$, which is too large."),
    # a value from the reasoning, the answer in prose after it
    ("29.75", "One might think the time in hours is $\\frac{119}{4}$, but that ignores the constraint.\n\n= 297.5"),
    ("75", "A first attempt gives $75\\degree$, but this double counts.\n\n**Measure of the angle:** 37°"),
    ("4, 7", "Note that $x = 4, 7$ is only the value of the first part.\n\nTherefore the solutions are -4, -7."),
    # Unicode roots read one digit
    (r"3\sqrt{2}", "The answer is 3√21."), ("9", "The answer is 9√11."), ("0", "The answer is 7√10."),
]

REFUSED_BEFORE = [
    # a check that restates the answer
    ("3", "The answer is 3. Check: $1+2=3$."),
    ("-71", "The answer is -71. Check: $71 - 142 = -71$."),
    ("388", "The answer is **388**. Check: $388 \\times 3 = 1164$ ✓"),
    ("0.55", "The answer is 11/20. Check: $\\frac{11}{20} = 0.55$."),
    ("249", "The answer is 249.0. Check: $1245 \\div 5 = 249$."),
    ("(-6, -3)", "The answer is $(-6,-3)$. Check: $x = -7$ ✓"),
    (r"\textbf{(A)}", "The answer is (A) 6. Check: $6 - 4 = 2$ ✓"),
    # a note after the answer
    ("3", "Answer: 3 (the smallest such n)."), ("30_{8}", "Answer: $30_8$ (in base 8)."),
    ("-9, -5", "Answer: -5, -9 (both roots)."), ("150\\%", "Answer: 150% (of the original price)."),
    ("10\\pi", "The answer is $10\\pi$, since that is the only value satisfying both conditions."),
    # a conclusion in prose or a display line
    ("3", "Therefore the number of ways is 3."), ("19.5", "That gives us 19.5 as the final answer."),
    ("106", "= 106"), ("45\\%", "= 45 percent"), ("12\\%", "$$\n= 12\\%\n$$"),
    ("x^2 + 15x + 56", "$$\n= x^2 + 15x + 56\n$$"), ("1556", "**Profit:** $1556"),
    ("375", "$\\therefore$ 375"), ("2, 8", "We get it.\n\n$\\therefore$ 8, 2"),
    ("60\\pi", "Now we finish.\n\n= 60π"),
    # a short sentence is not a bare product
    ("40", "It is $40$."), ("476", "It is $\\$476$."),
    # a currency dollar is not a math span
    ("264", "Start: $41 + 49 = 90$.\n\nThe answer is $264. I hope it is correct."),
    ("2936", "The answer is $2,936. The units are dollars."),
    # the option and its value
    ("(E)", "Final answer: (E) 55"), (r"\textbf{(B)}", "**Answer:** B) 22"),
    (r"\textbf{(D)}", "Therefore the correct option is (D) 23."),
    # Unicode roots
    (r"7\sqrt{10}", "The answer is 7√10."), (r"\sqrt{x+1}", "√(x+1)"), (r"5\sqrt{21}", "Final answer: 5√21"),
    # a remark clause, math in \\( \\), a unit after math or a percent (check 5, out-of-sample)
    ("36", "Thus, the final answer is $36$, which matches our intuition."),
    ("35", "Thus, the final answer is \\(35\\), which matches our intuition."),
    ("-5", "Final answer: \\(x = -5\\) units"), ("90\\%", "Final answer: 90% units"),
    # a unit of two words, a remark after a comma, "has" stating the value (check 5)
    ("4\\pi", "The area is $4\\pi$ square units."),
    ("36", "So there are $36$ committees in total, which matches our intuition."),
    ("12", "She has $12$ apples left, which is reasonable."),
    # a word answer the last sentence states
    (r"\text{south}", "Then there are 11 more steps.\n\nTherefore the direction she faces is **south**."),
    ("green", "That gives us *green* as the final answer."),
    ("Devon", "We find $160$ and $86$.\n\n$\\therefore$ **Devon**"),
    ("E", "So $484 - 36 = 448$.\n\n**Correct option:** E"), ("B", "That gives us **(B)** as the final answer."),
    # math delimiters are not a note: \(...\) after a phrase
    (r"\text{(C)}", "Thus the answer is \\(\\mathrm{C}\\)."),
]

STILL_REFUSED = [
    ("12", "She has $12$ apples left, which is wrong."), ("12", "She has $12$ apples left, which doubles to 24."),
    ("36", "The final answer is $36$, which is doubled."), ("36", "The final answer is $36$, which is wrong."),
    # a word answer that is hedged, negated, listed, or read from math
    ("south", "Therefore she faces north or south."), ("south", "Therefore the direction is not south."),
    ("south", "It might be south."), (r"\text{(D)}", "So $n = E$ or $n = D$."),
    # a note that hedges or names a value keeps the answer unreadable
    ("A", "Answer: A (or possibly B)."), ("3", "The answer is 3 (not 4)."),
    # a check line verifies the phrase's answer: its own values are never paid
    ("4", "The answer is 3. Check: $x = 4$."),
    ("3", "The answer is 3. Check: actually it is 4."),
    # options: another option, or words, after the letter
    ("(D)", "The answer is (D) or (E)."), ("(A)", "Answer: (B) 15"),
    # a statement after the value concludes something else
    ("11", "Then there are 11 more steps to consider.\n\nTherefore she faces south."),
    ("160", "We find intermediate values $160$ and $86$.\n\n$\\therefore$ **Devon**"),
]


@pytest.mark.parametrize("gold, response", PAID_BEFORE)
def test_not_paid(gold, response):
    v = judge(gold, response)
    assert v.equivalent is False, v


@pytest.mark.parametrize("gold, response", REFUSED_BEFORE)
def test_paid(gold, response):
    v = judge(gold, response)
    assert v.equivalent is True, v


@pytest.mark.parametrize("gold, response", STILL_REFUSED)
def test_still_refused(gold, response):
    v = judge(gold, response)
    assert v.equivalent is False, v
