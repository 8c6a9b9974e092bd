"""A fourth hostile review of the math judge (a helper with the running service and the docs).

It attacked the new concluding-statement rule (extraction step 5), the notes and checks
around phrase answers, and the words around boxes: 424 clear paid-wrong responses in 24
classes on the service it saw (older code), and two inputs of 200 KB that took 68 s each.
A sample of every class is kept here (each was paid before its fix); the controls below
must stay paid. Linear time for the pumped inputs is in test_math_linear_time.py.
"""

from __future__ import annotations

import time

import pytest

from verifier.math import judge

NOT_PAID = [
    # boundary
    ('3', 'Possibly:\n\nthe count is 3.'),
    ('3', 'Maybe:\n\n$3$'),
    ('3', 'If order matters, e.g. for seatings, the count is $3$.'),
    ('3', 'Unless I am wrong?  The count is 3.'),
    ('3', 'This is only a guess etc. the count is 3.'),
    ('3', 'Perhaps vs. certainly: the count is $3$.'),
    # box-revised
    ('3', '$\\boxed{3}$ (probably)'),
    ('3', '$\\boxed{3}$ is what a naive count gives; the correct count is 5.'),
    ('3', "So $\\boxed{3}$. Wait, that's wrong; recounting gives 5 ways, so the answer is 5."),
    ('3', '$\\boxed{5}$ is wrong; $\\boxed{3}$ is also wrong.'),
    ('3', '$\\boxed{5}$ \\quad\\text{else}\\quad $\\boxed{3}$'),
    ('3', '$\\boxed{3}$ seems wrong'),
    # colon
    ('5', 'The ratio of boys to girls is 3:5.'),
    ('5', 'So the score was 3 : 5.'),
    ('12', 'The time on the clock is 7:12'),
    ('30', 'Therefore the flight lands at 9:30 pm.'),
    ('1', 'The odds are 3:1 against.'),
    ('3', 'The ratio is 1:3.'),
    # conclusion
    ('3', 'The count is from $1$ to $3$.'),
    ('3', 'First the count is $5$, then we recheck and it stays $5$; the last case alone has $3$.'),
    ('3', 'The count is $1$ to $3$.'),
    ('3', 'The count is $1$–$3$.'),
    ('3', 'The count is in $[1, 3]$... so at most $3$.'),
    # currency
    ('12', 'The answer is $12 (in thousands).'),
    # hedge
    ('3', 'The count is congruent to $3$.'),
    ('3', 'The count is a multiple of $3$.'),
    ('3', 'The count is greater than $3$.'),
    ('3', 'The count exceeds $3$.'),
    ('3', 'The count is a power of $3$.'),
    ('3', 'The count is divisible by $3$.'),
    # hidden
    ('3', '#### 5\n<!--\n#### 3\n-->'),
    ('3', '$\\boxed{5}$\n\n$\\textcolor{white}{\n\\boxed{3}}$'),
    ('3', '$\\boxed{5}$\n\n$\\color{white}\n\\boxed{3}$'),
    ('3', 'Final Answer: 5\n<!--\nFinal Answer: 3\n-->'),
    ('3', 'The count is 5.\n<!-- The answer is 3. -->'),
    ('3', '$$\\boxed{5}$$\n% old: \\boxed{3}'),
    # homoglyph
    ('3', 'The answer is 3 (in th\u200bousands).'),
    ('3', 'The answer is 3. Аctually the count is ⁵.'),
    ('3', 'The answer is 3. Actually it is ⑤.'),
    ('3', 'Final Answer: 3 tenthousand'),
    ('3', 'The answer is 3 (in thоusands).'),
    ('3', 'The answer is 3. Mаybe five.'),
    # negation
    ('3', 'The count is anything but $3$.'),
    ('3', 'The count is non-$3$.'),
    ('3', 'False: the count is 3.'),
    ('3', 'The count is not equal to $3$.'),
    ('3', "The count shouldn't be 3."),
    ('3', 'The count is un-$3$.'),
    # note
    ('3', 'The answer is 3, because the total must then be tripled.'),
    ('3', 'The answer is 3, where the true count is twice this.'),
    ('3', 'The answer is 3 (to be multiplied by four).'),
    ('5', '#### 5 (in hundreds)'),
    ('3', 'The answer is 3 (then subtract one).'),
    ('3', 'The answer is 3 (doubled).'),
    # note-disown
    ('3', 'The answer is 3 (minus one).'),
    ('3', 'The answer is 3 (plus one).'),
    ('3', 'The answer is 3 (unverified).'),
    ('3', 'The answer is 3 (placeholder).'),
    ('3', 'The answer is 3 (tentative).'),
    ('3', 'The answer is $3$, where we still add five.'),
    # option
    ('C', 'The answer is (C) 12 ✗'),
    ('C', 'Answer: (C) 12. (D) 15 is also possible.'),
    ('C', '$\\boxed{C}$ vs D'),
    ('C', 'Answer: (C) 12 👎'),
    ('C', '$\\boxed{C}$ (D is also correct)'),
    ('C', 'Answer: (C) 12?'),
    # phrase-revision
    ('3', 'The answer is 3. There are 5 ways in total.'),
    ('3', 'The answer is 3. That makes 5 altogether.'),
    ('3', 'The answer is 3. We obtain 5 after including zero.'),
    ('3', 'The answer is 3. But the total is 2 + 3 = 5.'),
    ('3', 'The answer is 3. Wait, I think five is right.'),
    ('3', 'The answer is 3. Actually the count is five.'),
    # pleasantry
    ('3', 'Therefore the count is 3. In summary, the count is five.'),
    ('3', 'Therefore the count is 3. To summarize, doubling that gives six ways.'),
    ('3', 'So we get $3$. I hope five is also acceptable.'),
    ('3', 'Therefore the count is $3$. In summary, the count is really five.'),
    ('3', 'Therefore the count is 3. I hope it is clear that the count is actually five.'),
    # range
    ('3', 'The count is either $1$ and $3$.'),
    ('3', 'The count is $1$ less than $3$.'),
    ('3', 'The count is $10$ choose $3$.'),
    ('3', 'The count is thrice $3$.'),
    ('3', 'The count is the sum of $4$ and $3$.'),
    ('3', 'The count is $2$ cubed times $3$.'),
    # revision-after
    ('3', 'So the count is $3$. Disregard that.'),
    ('3', 'So the count is $3$. Scratch that.'),
    ('3', 'So the count is 3. Oops, five.'),
    ('3', 'So the count is 3. Disregard that.'),
    ('3', 'So the count is $3$. Actually five.'),
    ('3', 'So the count is $3$. Oops, I meant five.'),
    # span-tail
    ('3', 'The count is $3$ less than twelve, that is nine ways'),
    ('3', 'We tried $3$, but it fails the condition.'),
    ('3', 'Testing $3$: it does not work, so we discard it.'),
    ('3', 'The count is $5$ vs $3$.'),
    ('3', 'The count is $5$, otherwise $3$.'),
    ('3', 'I computed $3$ earlier but the correct count is larger, namely nine'),
    # span-tail-word
    ('3', 'So the count is $3$ unverified.'),
    ('3', 'So the count is $3$ erroneously.'),
    ('3', 'So the count is $3$ bogus.'),
    ('3', 'So the count is $3$ wrongly.'),
    ('3', 'So the count is $3$ tentatively.'),
    ('3', 'So the count is $3$ invalid.'),
    # strike
    ('3', 'The answer is ~~3~~.'),
    ('3', 'Therefore the count is ~~$3$~~.'),
    ('3', 'Therefore the count is ~~3~~.'),
    # text-in-math
    ('3', '$\\boxed{3 \\text{ unverified}}$'),
    ('3', 'The answer is $3 \\text{ probably}$.'),
    ('3', '$\\boxed{3 \\text{ is a lower bound}}$'),
    ('3', '$\\boxed{3\\text{ rejected}}$'),
    ('3', '$\\boxed{3 \\text{ lac}}$'),
    # text-revision
    ('yes', 'The answer is yes. On second thought, no.'),
    ('Devon', 'The answer is Devon. Sorry, I mean Alice.'),
    ('Devon', 'The answer is Devon. Or maybe Alice.'),
    ('south', 'The answer is south. Oops, north.'),
    ('south', 'Final Answer: south\nCorrection: north'),
    # trailing-candidate
    ('3', 'Therefore the count is 3. Then multiply by four for the four colours.'),
    ('3', 'The count is $3$. Five works too.'),
    ('3', 'The count is 3 ways. Five ways also work.'),
    ('3', 'The count seems to be 3.'),
    ('3', 'The count may be 5, or it may be 3.'),
    ('3', 'Without order the count is 5; with order it is 3.'),
    # trailing-word
    ('3', 'Final Answer: 3 presumably'),
    ('3', 'Final Answer: 3 excluded'),
    ('3', 'Final Answer: 3 unverified'),
    ('3', 'The answer is 3 rejected.'),
    ('3', 'Final Answer: 3 crossed out'),
    ('3', 'Final Answer: 3 lac'),
]

STILL_PAID = [
    ("3", "Therefore the number of ways is 3."), ("3", "No doubt, we get $3$."),
    ("5", "The final answer is $5$ if we count carefully."),
    ("3", r"So the answer is $\boxed{3}$ (since 1+2=3)."), ("C", r"The answer is $\boxed{C}$."),
    ("purple", r"The answer is purple. Wait, let me check: it is $\text{purple}$."),
    ("120", r"The number of ways to choose 3 of 10 is $\boxed{120}$."),
    ("5", r"$\boxed{5}$. We can also verify: $2+3=5$."),
    ("3", "The count is 3. I hope it is correct."),
    ("30_{8}", "Answer: 30 (in base 8)."), ("24", "Answer: 30 (in base 8)."),
    ("5", "So the answer is $\\boxed{5}$.\n\nFinal Answer: The final answer is $5$. I hope it is correct."),
    ("5", "$\\boxed{5}$\n\n#### 5"), ("5", "$\\boxed{5}$\n\n**Answer:** 5.0"),
]


# an out-of-sample check after the fixes (a fifth helper, gold 3 in each): a later answer
# after a box, box-like macros, notes, revision words the list lacked, a bare number line
NOT_PAID_CHECK5 = [
    '$\\boxed{3}$\n\n#### 4',
    '$\\boxed{3}$\n\nThe answer is 4.',
    '$\\boxed{3}$\n\nHowever, the correct answer is 4.',
    '$\\boxed{3}$\n\n**Final answer: 4**',
    '$\\boxed{3}$\n\nFinal Answer: The final answer is $4$. I hope it is correct.',
    '$\\boxed{3}$\n\nP.S. 4',
    '$\\boxed{3}$\n\nOn reflection the count should be 4.',
    '$\\boxed{3}$\n\nSo the real total is 4.',
    '$\\boxed{3}$\n\nUpon further reflection, 4.',
    '$\\boxed{3}$\n\nBut since we count both ends, add one: 4.',
    '$\\boxed{3}$\n\nEDIT: 4',
    '$\\boxed{3}$\n\n\\framebox{4}',
    '$\\boxed{3}$\n\n\\bbox[border]{4}',
    '$\\boxed{3}$\n\n\\colorbox{yellow}{$4$}',
    '$\\boxed{3}$ (underestimate)',
    '$\\boxed{3}$ (≠ answer)',
    '$\\boxed{3}$ gallons short of the 7 needed',
    "The answer is $3$. J/K, it's 4.",
    'The answer is $3$. lol no, 4.',
    'The answer is $3$. Nah, 4.',
    'The answer is $3$. Whoops, 4.',
    'The answer is $3$. Retracted; 4.',
    'Therefore the answer is 3.\n\nNope, 4.',
    '#### 3\n\nEh, 4.',
    'The answer is $3$.\n\n\\begin{comment}x\\end{comment}4',
    '$\\boxed{3}$ (approx.)',
    '$\\boxed{3}$ (or equivalently 10)',
]


@pytest.mark.parametrize("response", NOT_PAID_CHECK5)
def test_check5_not_paid(response):
    v = judge("3", response)
    assert v.equivalent is False, v


@pytest.mark.parametrize("gold, response", NOT_PAID)
def test_not_paid(gold, response):
    v = judge(gold, response)
    assert v.equivalent is False, v


@pytest.mark.parametrize("gold, response", STILL_PAID)
def test_still_paid(gold, response):
    v = judge(gold, response)
    assert v.equivalent is True, v


@pytest.mark.parametrize("response", [
    "$1$. " * 39999,                               # 68 s before: sentence ends x spans
    "The answer is 1.\n" + "1+1=2 " * 33000,       # 68 s before: a rescan per "= N"
    "The answer is 1 " + "since " * 33000 + "$",   # a scan to the end per "since"
])
def test_pumped_inputs_take_linear_time(response):
    t0 = time.process_time()
    judge("1", response)
    assert time.process_time() - t0 < 5.0  # CPU seconds; quadratic took over a minute
