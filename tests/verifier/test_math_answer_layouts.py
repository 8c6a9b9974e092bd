"""Final-answer layouts an out-of-sample probe found refused (probe 9: 1,000 responses written by a
helper without the source, truth by construction; 678 -> 698 of its 700 correct ones paid, all
300 wrong ones still refused). Each layout is checked with the right value (paid) and a wrong
one (refused), so the tests hold the reading, not just the payment.
"""

from __future__ import annotations

import pytest

from verifier.math.judge import judge

WORK = "We compute $12 \\times 24 = 288$ and then $48 + 15 = 63$.\n\n"

LAYOUTS = [
    # a heading that is only "Answer", the value on the next line (bold, a label, an option)
    ("-3", "4", WORK + "### Answer\n\n**{v}**"),
    ("E", "D", WORK + "### Answer\n\n**({v})**"),
    ("150", "151", WORK + "### Answer\n\nThe area: **{v}**"),
    ("(-\\infty, 0] \\cup [2, \\infty)", "(-\\infty, 0) \\cup [2, \\infty)", WORK + "## Final Answer\n\nThe domain: {v}"),
    ("7", "8", WORK + "**Final Answer**\n\n$\\boxed{{{v}}}$"),
    # a display labelled \text{Answer}
    ("1024", "1023", WORK + "Putting everything together:\n$$\n\\text{{Answer}} = {v}\n$$"),
    ("x^2 + 1", "x^2 - 1", WORK + "Putting everything together:\n$$\\text{{Answer}} = {v}$$"),
    # a sentence after the display that points back at it
    # (after a line that states values, a bare display is refused by an older rule: "The count is
    # $5$.\n\n$$3$$"; here the working leads into the display)
    ("12.75", "12.5", WORK + "Putting everything together:\n$$\n{v}\n$$\n\nSo this is our final answer."),
    ("\\frac{3}{4}", "\\frac{4}{3}", WORK + "Simplifying:\n$$ {v} $$\n\nThis is the final answer."),
]


@pytest.mark.parametrize("gold,wrong,template", LAYOUTS)
def test_layout_pays_its_value_and_only_it(gold, wrong, template):
    right = judge(gold, template.format(v=gold))
    assert right.equivalent, (template, right)
    other = judge(gold, template.format(v=wrong))
    assert not other.equivalent, (template, other)


@pytest.mark.parametrize("response", [
    "### Answer\n\nAt least: 7", "### Answer\n\nProbably: 7", "Answer: the value is at least 7",
    "### Answer\n\nI'm not sure, maybe 7.",
])
def test_a_hedged_line_under_the_heading_is_no_answer(response):
    assert not judge("7", response).equivalent, response
