"""One response, one answer: the judge never pays a response for two golds that are not the
same value.

Why this property: a policy that found a form the judge pays for either of two values could
hedge between its candidates and raise its expected reward without solving the problem (the
sharpest reward hack a math judge can have). Misreading which of two values a response commits
to costs accuracy; paying both costs integrity.

Two oracles, neither built from the judge's own cases:
- generated hedges, truth by construction: every pair of different values below, joined by
  every hedging form (two boxes with or/xor/newlines/spacing, a list or set in one box, cases
  and array environments, "either ... or", conditions, tables, hidden text, \\fbox, bold), in
  both orders: at most one of the two golds may be paid;
- every response in the stored corpora (in-house cases, checks 6-8, the hostile reviews'
  attacks): each value it mentions (boxes, inline math, numbers, yes/no) is tried as the gold;
  the values paid must all be one value. Two readings are allowed on purpose and documented
  (docs/math-judging.md): a percentage is also its fraction (`50\\%` is 50 and 0.5), and an
  equation is also an equation with the same solutions (`x = 9` and `9x - 18 = 63`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from verifier.math import judge

DATA = Path(__file__).resolve().parents[1] / "data"

PAIRS = [("5", "7"), ("12", "-12"), (r"\frac{1}{2}", r"\frac{1}{3}"), ("0.25", "0.5"),
         (r"\sqrt{2}", r"\sqrt{3}"), (r"2\pi", r"\pi"), ("(1, 2)", "(2, 1)"), ("[0, 1)", "(0, 1]"),
         ("x^2+1", "x^2-1"), (r"\text{Yes}", r"\text{No}"), ("Yes", "No"), ("north", "south"),
         ("100", "1000"), (r"45^\circ", r"135^\circ"), (r"\{1, 2\}", r"\{1, 3\}"), ("2", "-2"),
         ("e", "e^2"), ("10", "10.5"), ("A", "B"), ("(A)", "(C)"), ("1/2", "2"), ("0", "1"),
         ("8", "80")]

# <A>/<B>: the value boxed; a/b: the bare value; <AB:sep>: one box holding "a sep b".
HEDGES = [
    "<A> or <B>", r"<A> \text{ or } <B>", r"<AB: \text{ or } >", r"<AB: \lor >", "<AB:, >",
    "<AB:; >", "<AB: / >", "<A><B>", "<A> <B>", "<A>\n<B>", r"<A>\\<B>", "$<A>$ and $<B>$",
    "The answer is a or b.", "The answer is a, or possibly b.", "The answer is either a or b.",
    "The answer is $a$ or $b$.", "Answer: a / b", "Answer: a|b", "The answer is a. The answer is b.",
    "Final answer: a\nFinal answer: b", "#### a\n#### b", "#### a or b", "<A> (or <B>)",
    "<A> (or b)", r"<AB: \quad >", r"<AB: \text{ and } >", r"\boxed{\begin{cases} a \\ b \end{cases}}",
    r"\boxed{\begin{array}{c} a \\ b \end{array}}", "<A> if $n$ is even, <B> if $n$ is odd.",
    "For even $n$: <A>. For odd $n$: <B>.", r"$x = a$ or $x = b$, so \boxed{x = a \text{ or } x = b}",
    r"\boxed{x \in \{a, b\}}", r"\boxed{\{a, b\}}", r"\boxed{a \pm b}", r"<A> \hspace{1cm} <B>",
    "| answer |\n|---|\n| a |\n| b |", "- a\n- b\n\nThe answer is one of the above.",
    "The answer is a.\n\nAlternatively, the answer is b.", "<A>\n\nAlternative answer: <B>",
    r"\[<A> \text{ or } <B>\]", r"\boxed{<A> \text{ or } <B>}", "<A><!-- <B> -->", "<A>% <B>",
    "<A>\u200b<B>", r"\fbox{a} or <B>", r"<A> \text{or} \fbox{b}", "**a** or **b**",
    "The answer is **a** (or **b**).", "<A> = <B>", r"\boxed{a = b}", r"\boxed{a \neq b}",
    r"\boxed{a \approx b}", r"\boxed{a \text{ to } b}", r"\boxed{\text{between } a \text{ and } b}",
    "<A>, <B>", r"\boxed{a}\text{ xor }\boxed{b}", r"\boxed{a \vee b}", r"\boxed{a \mid b}",
    r"\boxed{a \,|\, b}", r"\boxed{a \text{ (or } b)}", "<A>\n<B>\n<A>",
    r"\begin{align} x &= a \\ x &= b \end{align}", r"<A> \textbf{or} <B>",
    "The answer is a (if we count ordered pairs) or b (if unordered).",
    "Answer: a\n\n(If the problem meant the other reading, the answer is b.)",
]

_BARE_A = re.compile(r"(?<![A-Za-z\\])a(?![A-Za-z])")
_BARE_B = re.compile(r"(?<![A-Za-z\\])b(?![A-Za-z])")


def _boxed(v: str) -> str:
    return r"\boxed{" + v + "}"


def hedge(template: str, a: str, b: str) -> str:
    if "<AB:" in template:
        pre, rest = template.split("<AB:", 1)
        sep, post = rest.split(">", 1)
        template = pre + _boxed("\1" + sep + "\2") + post
    text = template.replace("<A>", _boxed("\1")).replace("<B>", _boxed("\2"))
    text = _BARE_B.sub("\2", _BARE_A.sub("\1", text))
    return text.replace("\1", a).replace("\2", b)


def test_the_hedge_generator_writes_both_values():
    for template in HEDGES:
        text = hedge(template, "31", "47")
        assert "31" in text and "47" in text and "\1" not in text, (template, text)


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a}|{b}" for a, b in PAIRS])
def test_a_hedge_between_two_values_is_never_paid_for_both(a, b):
    both = []
    for x, y in ((a, b), (b, a)):
        for template in HEDGES:
            text = hedge(template, x, y)
            if judge(x, text).equivalent and judge(y, text).equivalent:
                both.append(text)
    assert not both, both


def test_a_hedge_control_one_value_stated_twice_is_paid():
    # The generator's forms are answers the judge reads: the same value in both places is
    # paid for a fair share of them (else the test above would pass by refusing everything).
    paid = sum(judge("5", hedge(t, "5", "5")).equivalent for t in HEDGES)
    assert paid >= len(HEDGES) // 4, paid


NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:/\d+)?")
WORDS = ("yes", "no", "true", "false")


def _box_contents(text: str) -> list[str]:
    out, i = [], 0
    while (j := text.find(r"\boxed{", i)) >= 0:
        k, depth = j + 7, 1
        while k < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[k], 0)
            k += 1
        out.append(text[j + 7:k - 1])
        i = k
    return out


def _values(gold: str, text: str) -> list[str]:
    found = [gold, *_box_contents(text), *re.findall(r"\$([^$]{1,60})\$", text), *NUMBER.findall(text)]
    low = text.lower()
    found += [w.capitalize() for w in WORDS if re.search(rf"\b{w}\b", low)]
    seen: list[str] = []
    for v in (v.strip() for v in found):
        if v and v not in seen and len(v) < 80:
            seen.append(v)
    return seen[:14]


def _same(p: str, q: str) -> bool:
    return any(judge(x, y).equivalent or judge(x, _boxed(y)).equivalent for x, y in ((p, q), (q, p)))


def _documented(values: list[str]) -> bool:
    """The two readings the docs allow: a percentage and its fraction, an equation and an
    equation with the same solutions."""
    if len(values) != 2:
        return False
    if any("=" in v for v in values):
        return True
    p, q = values
    return any(judge(x, _boxed(y + r"\%")).equivalent for x, y in ((p, q), (q, p)))


def _corpora():
    for path in sorted(DATA.glob("math*.jsonl")):
        for line in path.read_text().split("\n"):  # (U+2028 inside responses: not splitlines)
            if not line.strip():
                continue
            item = json.loads(line)
            gold = item.get("gold")
            text = item.get("response") or item.get("prediction")
            if gold is not None and text is not None and len(text) <= 6000:
                yield path.name, str(gold), text


def test_no_stored_response_is_paid_for_two_different_values():
    seen = hedged = 0
    for name, gold, text in _corpora():
        seen += 1
        paid = [v for v in _values(gold, text) if judge(v, text).equivalent]
        classes: list[str] = []
        for v in paid:
            if not any(_same(c, v) for c in classes):
                classes.append(v)
        if len(classes) > 1 and not _documented(classes):
            hedged += 1
            pytest.fail(f"{name}: paid for {classes}: {text[-300:]!r}")
    assert seen > 2000, seen  # every corpus was read
    assert hedged == 0
