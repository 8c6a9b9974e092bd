"""judge(): one test per feature and policy, verdict fields, errors, thread safety."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from verifier.math import MathVerdict, judge


def eq(gold: str, pred: str, **kw) -> bool:
    v = judge(gold, pred, **kw)
    assert v.error is None, v
    return v.equivalent


@pytest.mark.parametrize("gold, pred, expected", [
    # the known weaknesses of other judges
    (r"\frac{\sqrt{2}}{2}", r"\frac{1}{\sqrt{2}}", True),
    ("1e-10", "2e-10", False),            # no absolute rounding of tiny values
    ("1/3", "0.33", False),
    ("0.3", "0.1+0.2", True),             # decimals are exact rationals
    ("1000000000000", "1000000000001", False),  # exact integers compare exactly
    ("1/3", "0.3333333333333", True),     # a decimal gets rel 1e-9
    ("0", "1e-15", False),
    ("[1,2)", "[1,2]", False),
    ("(1,2)", r"\{1,2\}", False),
    ("5", r"\frac{5}{", False),           # no number fished out of garbage
])
def test_hard_cases(gold, pred, expected):
    assert eq(gold, pred) is expected


def test_percent_policy():
    assert eq("50", r"50\%") and eq(r"50\%", "0.5") and eq("0.5", "50%")
    assert not eq("50", "0.5") and not eq("0.5", "50")


def test_degrees_units_thousands_scientific():
    assert eq(r"30^\circ", "30°") and not eq(r"90^\circ", r"\frac{\pi}{2}")
    assert eq("10", r"10 \text{ cm}^2") and eq("5", r"\$5.00")
    assert eq("1000000", "1,000,000") and not eq("1000", "1,00")
    assert eq("0.0015", r"1.5 \times 10^{-3}") and eq("0.0015", "1.5e-3")


def test_mixed_numbers_and_roots():
    assert eq(r"2\frac{1}{3}", "7/3") and not eq(r"2\frac{1}{3}", r"\frac{2}{3}")
    assert eq(r"\sqrt[3]{8}", "2") and eq(r"2\frac{\pi}{3}", r"\frac{2\pi}{3}")


def test_structures():
    assert eq(r"(-\infty, 3]", r"x \le 3") and not eq(r"(-\infty, 3]", "x < 3")
    assert eq("(1,2)", "(1, 2)") and not eq("(1,2)", "(2,1)")
    assert eq(r"\{1,2\}", r"x = 1 \text{ or } x = 2") and eq(r"3 \pm \sqrt{5}", r"3-\sqrt5, 3+\sqrt5")
    assert eq(r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}", "(1, 2)")
    assert not eq(r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", r"\begin{pmatrix} 1 & 3 \\ 2 & 4 \end{pmatrix}")


def test_equation_policy():
    assert eq("x = 3", "3") and eq("3", "x = 3")
    assert eq("y = 2x+1", "2x - y + 1 = 0") and not eq("y = 2x+1", "y = 2x-1")
    assert not eq("x = 3", "y = 3")


def test_symbolic_and_text():
    assert eq("x^2 - 1", "(x-1)(x+1)") and not eq("(a+b)^2", "a^2+b^2")
    assert eq(r"\text{Devon}", "devon") and not eq("yes", "no")


def test_verdict_fields_describe_the_decision():
    v = judge("7", r"Lots of work, then \boxed{3} and finally \boxed{\frac{14}{2}}.")
    assert isinstance(v, MathVerdict)
    assert v.equivalent and v.extracted == r"\frac{14}{2}"
    assert v.gold_parsed == "7" and v.prediction_parsed == "7"
    assert v.reason and v.error is None and not v.timed_out
    v = judge(r"\sqrt{2}", "1.4142135623731")
    assert v.equivalent and "rel 1e-9" in v.reason and v.prediction_parsed


def test_extract_false_uses_prediction_as_written():
    assert judge("2", "1 and 2", extract=False).equivalent is False
    assert judge("2", "the answer is 2", extract=True).equivalent is True


def test_no_answer_is_not_an_error():
    v = judge("25", "I have no idea.")
    assert not v.equivalent and v.reason == "no answer found" and v.error is None


def test_unparsable_prediction_is_not_equivalent_but_unparsable_gold_is_an_error():
    v = judge("5", r"\boxed{\frac{5}{}")
    assert not v.equivalent and v.error is None and "unparsable" in v.reason
    v = judge(r"\frac{5}{", "5")
    assert not v.equivalent and v.error is not None and "gold" in v.error


@pytest.mark.parametrize("kwargs, exc", [
    ({"gold": 5, "prediction": "5"}, TypeError),
    ({"gold": "5", "prediction": None}, TypeError),
    ({"gold": "5", "prediction": "5", "timeout_s": 0}, ValueError),
    ({"gold": "x" * 300_000, "prediction": "5"}, ValueError),
])
def test_bad_input_raises_a_clear_error(kwargs, exc):
    with pytest.raises(exc):
        judge(**kwargs)


def test_concurrent_calls_from_many_threads_agree():
    pairs = [(r"\frac{\sqrt{2}}{2}", r"\frac{1}{\sqrt{2}}", True), ("x > 2", r"(2, \infty)", True),
             ("1/3", "0.33", False), (r"\{1,2\}", "(1,2)", False)] * 6
    barrier = threading.Barrier(8)

    def run(item):
        g, p, want = item
        try:
            barrier.wait(timeout=30)
        except threading.BrokenBarrierError:
            pass
        v = judge(g, p, timeout_s=20)
        return v.error is None and v.equivalent is want

    with ThreadPoolExecutor(max_workers=8) as ex:
        assert all(ex.map(run, pairs))


def test_an_oversized_prediction_is_wrong_not_an_error():
    v = judge("5", "x" * 300_000)
    assert v.equivalent is False and v.reason == "too_large" and v.error is None


def test_prediction_sympy_cannot_handle_is_wrong_not_an_error():
    v = judge(r"(2, \infty)", "x > y")
    assert not v.equivalent and v.error is None and "not comparable" in v.reason
    # our sympy backend cannot compare this gold; math-verify reads it: a verdict, no IE
    v = judge("x + y > 2", "(2, 3)")
    assert not v.equivalent and v.error is None


def test_extract_false_still_unwraps_a_single_box():
    assert judge("5", r"\boxed{5}", extract=False).equivalent
    assert not judge("5", r"\boxed{5}\boxed{6}", extract=False).equivalent


def test_prose_is_never_parsed_as_a_product_of_letters():
    v = judge("25", "the answer is unknown", extract=True)
    assert not v.equivalent and v.error is None


def test_public_surface():
    import verifier.math as m

    assert {"judge", "extract_answer", "MathVerdict"} <= set(m.__all__)
    assert set(m.MathVerdict.model_fields) == {
        "equivalent", "extracted", "gold_parsed", "prediction_parsed", "reason", "error",
        "timed_out"}


def test_math_verify_is_imported_only_by_the_worker_side_module():
    """math-verify (and sympy) load only in the killable worker processes: the service
    process must not import them (memory, import time, and no in-process sympy)."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "verifier"
    pattern = re.compile(r"^\s*(?:import|from)\s+math_verify\b", re.M)
    offenders = [p.name for p in root.rglob("*.py") if pattern.search(p.read_text())]
    assert offenders == ["reference.py"]
    code = ("import sys; from verifier.math import judge; judge('x^2-1', '(x-1)(x+1)'); "
            "judge('1/2', '0.5'); print(sorted(m for m in ('sympy', 'math_verify') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=root.parent, timeout=120)
    assert out.stdout.strip() == "[]", out.stderr[-2000:]
