"""answer_form as_gold, checked by construction (not against hand-picked cases).

From every as_gold gold of the sample math set and a few shapes more, two families are made:
* echoes: one integer of the gold replaced by arithmetic that equals it (``9`` -> ``(4+5)``,
  ``3^2``, ``\\sqrt{81}``, ``\\frac{18}{2}``); equal in value by construction, so the value
  judge pays them, and written with work the gold does not leave undone, so as_gold must not;
* restatements: the gold with other spacing, ``\\dfrac``, ``\\left( \\right)``, braces; the
  same form by construction, so as_gold must pay them.
"""

import json
import random
import re
from pathlib import Path

import pytest

from verifier.math import judge
from verifier.math.extract import extract_gold

ROOT = Path(__file__).resolve().parents[2]
EXTRA = ["x^2 - 9", "(x-3)(x+3)", "2\\sqrt{3}", "\\frac{3\\sqrt{2}}{4}", "3x^2 + 12x + 7",
         "\\frac{11}{12}", "-\\frac{7}{5}", "15\\pi", "(4, -7)", "x^3 - 8", "6\\sqrt{5} - 4",
         "\\frac{x + 5}{3}", "5x - 14", "\\{2, 9\\}", "8\\pi + 12"]


def _golds() -> list[str]:
    out = []
    for name in ("train.jsonl", "heldout.jsonl"):
        for line in (ROOT / "samples/math" / name).read_text().splitlines():
            rec = json.loads(line)
            if rec.get("answer_form") == "as_gold":
                out.append(extract_gold(rec["answer"]))
    return out + EXTRA


def _echoes(k: int, rng: random.Random) -> list[str]:
    a = rng.randint(1, k - 1) if k > 1 else 1
    out = [f"({a}+{k - a})" if k > 1 else "(3-2)", f"\\frac{{{2 * k}}}{{2}}", f"\\sqrt{{{k * k}}}",
           f"({k + a}-{a})"]
    small = [d for d in range(2, 10) if k % d == 0 and k // d > 1]
    if small:
        out.append(f"{small[0]}\\cdot {k // small[0]}")
    root = round(k ** 0.5)
    if root > 1 and root * root == k:
        out.append(f"{root}^{{2}}")
    return out


def _cases():
    rng = random.Random(20261129)
    cases = []
    for gold in _golds():
        for m in re.finditer(r"(?<![\d.])\d+(?![\d.])", gold):
            k = int(m.group())
            if k == 0 or k > 10**6:
                continue
            for echo in _echoes(k, rng):
                cases.append((gold, gold[:m.start()] + echo + gold[m.end():]))
    return cases


def _restatements(gold: str) -> list[str]:
    out = [gold.replace(" ", ""), re.sub(r"([+\-=,])", r" \1 ", gold), gold.replace("\\frac", "\\dfrac")]
    if gold.startswith("(") and gold.endswith(")") and gold.count("(") == 1:
        out.append("\\left(" + gold[1:-1] + "\\right)")
    return [r for r in out if r != gold]


ECHOES = _cases()


def test_the_corpus_is_not_small():
    assert len(ECHOES) >= 150, len(ECHOES)


@pytest.mark.parametrize("gold, echo", ECHOES)
def test_an_echo_equal_in_value_is_not_in_the_golds_form(gold, echo):
    value = judge(gold, f"\\boxed{{{echo}}}")
    assert value.equivalent is True, (echo, value.reason)  # the construction keeps the value
    v = judge(gold, f"\\boxed{{{echo}}}", form="as_gold")
    assert v.equivalent is False and v.reason.startswith("not in the form asked for"), (echo, v.reason)


@pytest.mark.parametrize("gold", _golds())
def test_a_restatement_is_in_the_golds_form(gold):
    for text in [gold, *_restatements(gold)]:
        v = judge(gold, f"\\boxed{{{text}}}", form="as_gold")
        assert v.equivalent is True, (text, v.reason)
