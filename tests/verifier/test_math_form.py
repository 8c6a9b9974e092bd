"""answer_form: as_gold: equal in value AND written in the gold's form (verifier.math.form)."""

import pytest

from verifier.math import judge


@pytest.mark.parametrize("gold, pred", [
    ("(x-3)(x+3)", "(x+3)(x-3)"), ("x^2+2x+1", "1 + 2x + x^2"), ("391", "391"), ("0.375", ".375"),
    ("45\\%", "45 \\%"), ("\\frac{11}{12}", "\\dfrac{11}{12}"), ("-\\frac{5}{3}", "\\frac{-5}{3}"),
    ("2\\sqrt{3}", "2 \\sqrt 3"), ("9\\pi", "9 \\pi"), ("(1, 3)", "(1,3)"), ("\\{2, 3\\}", "\\{3, 2\\}"),
    ("3x^2 + 2", "2 + 3x^2"), ("88", "88 cookies"),
])
def test_same_form_is_paid(gold, pred):
    assert judge(gold, f"\\boxed{{{pred}}}", form="as_gold").equivalent is True


@pytest.mark.parametrize("gold, pred", [
    ("(x-3)(x+3)", "x^2 - 9"), ("x^2+2x+1", "(x+1)^2"), ("391", "17 \\times 23"), ("0.375", "\\frac{3}{8}"),
    ("45\\%", "0.45"), ("\\frac{11}{12}", "\\frac{22}{24}"), ("2\\sqrt{3}", "\\sqrt{12}"), ("x + 1", "\\frac{x^2-1}{x-1}"),
    ("5050", "\\sum_{k=1}^{100} k"), ("(1, 3)", "1 < x < 3"), ("\\{2, 3\\}", "x = 2 \\text{ or } x = 3"),
    ("120", "5!"), ("10", "\\log_2 1024"),
])
def test_same_value_other_form_is_not_paid(gold, pred):
    assert judge(gold, f"\\boxed{{{pred}}}").equivalent is True  # the value is right
    v = judge(gold, f"\\boxed{{{pred}}}", form="as_gold")
    assert v.equivalent is False and v.reason.startswith("not in the form asked for"), v


def test_wrong_value_stays_wrong_and_form_is_checked():
    assert judge("391", "\\boxed{392}", form="as_gold").equivalent is False
    with pytest.raises(ValueError, match="form"):
        judge("1", "1", form="factored")


async def test_http_form_field_and_problem_answer_form(client, blobs):
    r = await client.post("/v1/math/verify", json={"gold": "391", "prediction": "\\boxed{17 \\times 23}",
                                                   "form": "as_gold"})
    body = await r.json()
    assert r.status == 200 and body["equivalent"] is False and "form" in body["reason"]
    r = await client.post("/v1/math/verify", json={"gold": "391", "prediction": "\\boxed{17 \\times 23}"})
    assert (await r.json())["equivalent"] is True
    r = await client.post("/v1/math/verify", json={"gold": "1", "prediction": "1", "form": "factored"})
    assert r.status == 422 and "form" in (await r.json())["message"]


async def test_a_problem_asking_for_a_form_judges_it(client, blobs):
    from problem_store.manifest import MathProblem
    from problem_store.problems import ProblemStore
    ProblemStore(blobs).put(MathProblem(id="factor-it", question="Factor $x^2-9$.",
                                        answer="(x-3)(x+3)", answer_form="as_gold"))
    verdicts = []
    for code in ("\\boxed{x^2-9}", "\\boxed{(x+3)(x-3)}"):
        r = await client.post("/v1/verify", json={"problem_id": "factor-it", "code": code})
        verdicts.append((await r.json())["verdict"])
    assert verdicts == ["WA", "AC"]


@pytest.mark.parametrize("gold, pred", [
    # a second hostile review: identities and unsimplified roots kept the gold's outer form
    ("2\\sqrt{3}", "1\\sqrt{12}"), ("(x-3)(x+3)", "(x\\cdot x-9)\\cdot 1"), ("(x-3)(x+3)", "(-1)(9-x x)"),
    ("x^2+2x+1", "(x+1)^2+0"), ("\\frac{\\sqrt{3}}{2}", "\\frac{\\sqrt{12}}{4}"), ("2\\sqrt{5}", "1\\sqrt{20}"),
    ("2\\sqrt{2}", "1\\sqrt{8}"), ("x^2", "x^{2} \\cdot 1"), ("3x", "3x^{1}"),
])
def test_identities_and_unsimplified_roots_are_not_the_golds_form(gold, pred):
    assert judge(gold, f"\\boxed{{{pred}}}").equivalent is True
    v = judge(gold, f"\\boxed{{{pred}}}", form="as_gold")
    assert v.equivalent is False and v.reason.startswith("not in the form asked for"), v
