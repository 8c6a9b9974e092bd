"""A third hostile review of the math judge (a helper with the service and the docs only):
76 responses paid although the answer was wrong, negated, hedged or not in the form asked
for, each kept here (the one documented policy it questioned, a unit word dropped after a
number, is not). Classes: notation around a box (Unicode operators and relations, a factor
or function before it, words that change its value or negate it), the last-math-span path
without a negation or hedge check, revisions after a GSM ``####`` answer or a phrase answer
in words the revision rule lacked, ``0.(3)`` read as a product, ``0.333…``, scale words in
other spellings, as_gold forms (unexpanded polynomials, like terms, products of roots,
repeating decimals for a fraction), sub/superscripts holding only an operator read by the
second parser.
"""

import pytest

from verifier.math import judge

CASES = [
    ('A1 box: unicode minus before', '3', 'So the answer is $−\\boxed{3}$.', None),
    ('A1 box: minus then paren', '3', 'So the answer is $-(\\boxed{3})$.', None),
    ('A1 box: \\left( paren', '3', 'So the answer is $-\\left(\\boxed{3}\\right)$.', None),
    ('A1 box: unicode ≠ before', '3', 'So the answer is $x ≠ \\boxed{3}$.', None),
    ('A1 box: unicode ≤ before', '3', 'So the answer is $x ≤ \\boxed{3}$.', None),
    ('A1 box: ± before', '3', '$±\\boxed{3}$', None),
    ('A1 box: fraction factor before', '3', 'So the answer is $\\frac{1}{2}\\boxed{3}$.', None),
    ('A1 box: sqrt factor before', '3', 'So the answer is $\\sqrt{2}\\boxed{3}$.', None),
    ('A1 box: x^{2} factor before', '3', 'So the answer is $x^{2}\\boxed{3}$.', None),
    ('A1 box: 2(..)', '3', 'So the answer is $2(\\boxed{3})$.', None),
    ('A1 box: abs', '-3', 'So the answer is $|\\boxed{-3}|$.', None),
    ('A1 box: floor', '3.5', 'So the answer is $\\lfloor\\boxed{3.5}\\rfloor$.', None),
    ('A1 box: \\log/\\ln/\\exp arg', '1', 'So the answer is $\\ln\\boxed{1}$.', None),
    ('A1 box: root index', '3', 'So the answer is $\\sqrt[\\boxed{3}]{8}$.', None),
    ('A1 box: unicode sqrt', '4', 'The value is $√\\boxed{4}$.', None),
    ('A1 box: unicode cube root', '8', '$∛\\boxed{8}$', None),
    ('A1 box: unicode superscript after', '3', 'The value is $\\boxed{3}²$.', None),
    ('A1 box: × 10^5 after', '3', 'The value is $\\boxed{3} × 10^{5}$.', None),
    ('A1 box: · after', '3', '$\\boxed{3}·10^5$', None),
    ('A1 box: ÷ after', '3', '$\\boxed{3}÷2$', None),
    ('A1 box: ½ after', '1', 'The value is $\\boxed{1}½$.', None),
    ('A1 box: spacing then {}^2', '3', 'So the answer is $\\boxed{3}\\,{}^{2}$.', None),
    ('A1 box: spacing then x', '3', 'The result is $\\boxed{3}\\, x$.', None),
    ('A1 box: \\ast', '3', 'So the answer is $\\boxed{3}\\ast 2$.', None),
    ('A1 box: \\bmod', '7', 'So the answer is $\\boxed{7} \\bmod 3$.', None),
    ('A1 box: \\choose', '5', 'So the answer is $\\boxed{5} \\choose 2$.', None),
    ('A1 box: double factorial', '5', 'So the answer is $\\boxed{5}!!$.', None),
    ('A1 box: \\lnot', '3', 'So the answer is $\\lnot \\boxed{3}$.', None),
    ('A1 box: \\textsuperscript', '3', 'So the answer is $\\boxed{3}\\textsuperscript{2}$.', None),
    ('A1 box: HTML sup', '3', 'So the answer is $\\boxed{3}$<sup>2</sup>.', None),
    ('A1 box: HTML &minus;', '3', 'So the answer is &minus;\\boxed{3}', None),
    ('A1 box: markdown -**', '3', 'So the answer is -**\\boxed{3}**', None),
    ('A2 box: scale word after', '3', 'So the answer is $\\boxed{3}$ thousand.', None),
    ('A2 box: \\text{ thousand} after', '3', 'So the answer is $\\boxed{3} \\text{ thousand}$.', None),
    ("A2 box: 'times 4' after", '3', 'The result is \\boxed{3} times 4.', None),
    ("A2 box: 'squared' after", '3', 'The result is \\boxed{3} squared.', None),
    ("A2 box: 'negative' before", '3', 'The result is negative \\boxed{3}.', None),
    ("A2 box: 'the square root of'", '9', 'The result is the square root of \\boxed{9}.', None),
    ("A2 box: 'less than'", '3', 'The value is less than \\boxed{3}.', None),
    ("A2 box: 'anything except'", '3', 'The value is anything except \\boxed{3}.', None),
    ('A3 box: NOT (uppercase)', '3', 'It is NOT \\boxed{3}.', None),
    ('A3 box: cannot be', '3', 'It cannot be \\boxed{3}.', None),
    ('A3 box: not **box**', '3', 'It is not **\\boxed{3}**.', None),
    ('A3 box: not (box)', '3', 'It is not (\\boxed{3}).', None),
    ('A3 box: not + newline', '3', 'It is not\n\\boxed{3}', None),
    ('B last math span: negated', '3', 'It is not $3$.', None),
    ("B last math span: 'incorrect'", '3', 'The value $3$ is incorrect.', None),
    ("B last math span: 'not X'", '3', "I think it's $4$, not $3$.", None),
    ('B last math span: hedge', '3', 'It could be $4$ or $3$', None),
    ('C GSM ####: revision ignored', '3', '#### 3\nWait, actually it is 4.', None),
    ('C GSM ####: recheck', '3', '#### 3\nHmm, let me recheck: it is 4.', None),
    ("D phrase: 'I meant 4'", '3', 'The answer is 3. I meant 4.', None),
    ("D phrase: 'Make that 4'", '3', 'The answer is 3. Make that 4.', None),
    ('D phrase: bare $4$ after', '3', 'The answer is $3$.\n\n$4$', None),
    ('D phrase: arrow', '3', 'The answer is 3. Result → 4', None),
    ('E decimal-point paren', '6', '\\boxed{1.(6)}', None),
    ('E decimal-point paren', '0', 'The answer is 0.(3).', None),
    ('F words: hyphenated scale', '3', 'The answer is 3 thousand-odd.', None),
    ('F words: hundred-thousand', '3', 'The answer is 3 hundred-thousand.', None),
    ('F words: -fold', '5', 'The answer is 5 hundredfold.', None),
    ('F words: point five', '5', 'The answer is 5 point five.', None),
    ('F words: mln / thou', '3', '\\boxed{3 \\text{ mln}}', None),
    ('F words: recurring', '0.3', '\\boxed{0.3 \\text{ recurring}}', None),
    ("F words: 'repeating' after box", '0.3', 'So the answer is \\boxed{0.3} repeating.', None),
    ('F unicode ellipsis', '0.333', '\\boxed{0.333…}', None),
    ('G as_gold: partly factored', 'x^2 + 2x + 1', '$x(x+2)+1$', 'as_gold'),
    ('G as_gold: question + x - x', 'x^2 + 2x + 1', '$(x+1)^2+x-x$', 'as_gold'),
    ('G as_gold: unexpanded', 'x^2 + 2x + 1', '$x^2+2(x+1)-1$', 'as_gold'),
    ('G as_gold: like terms', '3x^2 + 2', '$x^2+2x^2+2$', 'as_gold'),
    ('G as_gold: sqrt2*sqrt6', '2\\sqrt{3}', '$\\sqrt{2}\\sqrt{6}$', 'as_gold'),
    ('G as_gold: sqrt2*sqrt10', '2\\sqrt{5}', '$\\sqrt{2}\\sqrt{10}$', 'as_gold'),
    ('G as_gold: repeating decimal', '\\frac{11}{12}', '$0.91\\overline{6}$', 'as_gold'),
    ('H math-verify: malformed exponent', '3', '\\boxed{3^{\\cap}}', None),
    ('H math-verify: malformed exponent', '3', '\\boxed{3^{-\\cap}}', None),
    ('H math-verify: malformed exponent', '3', '\\boxed{\\sum_{k=1}^{1} 3^{=}}', None),
]


@pytest.mark.parametrize("kind, gold, response, form", CASES, ids=[f"{i}-{c[0][:30]}" for i, c in enumerate(CASES)])
def test_not_paid(kind, gold, response, form):
    v = judge(gold, response, form=form) if form else judge(gold, response)
    assert v.error is None and v.equivalent is False, (kind, response, v.reason)


@pytest.mark.parametrize("gold, response, form", [
    ("3", r"The answer is $\boxed{3}$ and we are done.", None), ("3", r"$(\boxed{3})$", None),
    ("3", "No doubt, we get $3$.", None), ("3", "#### 3\nThat is the count.", None),
    (r"\frac{5}{3}", r"\boxed{1.(6)}", None),
    ("x^2 + 2x + 1", "$1 + 2x + x^2$", "as_gold"), ("3x^2 + 2", "$2 + 3x^2$", "as_gold"),
    (r"2\sqrt{3}", r"$2\sqrt{3}$", "as_gold"), (r"\frac{11}{12}", r"$\dfrac{11}{12}$", "as_gold"),
    ("45^\\circ", r"\boxed{45^{\circ}}", None),
])
def test_still_paid(gold, response, form):
    v = judge(gold, response, form=form) if form else judge(gold, response)
    assert v.equivalent is True, (response, v.reason)
