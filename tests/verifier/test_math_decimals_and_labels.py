"""A hostile policy's finds of this round (service over HTTP, sample problems), with the
readings they forced, checked on generated cases whose truth holds by construction.

- Two decimal numbers: 4.2000000001 was paid for 4.2 (also on the sample problems
  m-decimal-product, m-median-decimal, m-three-eighths) under the 1e-9 once given to every
  decimal. Now exact, up to what binary doubles add (0.1 + 0.2 prints 0.30000000000000004).
- A decimal for a value it can only approximate (1/3, sqrt 2, pi): rel 1e-9 and right in every
  digit written (rounded or cut off at its last digit): trailing digits that claim more
  precision than is true are a different number.
- Equations: proportionality was checked with a float tolerance at random points, so
  2x - y + 1 + 10^{-40} = 0 was paid for y = 2x + 1.
- Labels: any letter before "(3) =" was a function name, so x(3) = 22 (3x = 22) and e(3) = 22
  were paid for 22, and (a, b) = 7 for 7.
- A text gold with an abbreviation (Mr. Smith) was IE even against itself: the phrase answer
  was cut at the abbreviation's full stop and the gold read as no text.
"""

from __future__ import annotations

import random
from decimal import Decimal, getcontext
from fractions import Fraction

import pytest

from verifier.math import judge

getcontext().prec = 60


def _eq(gold: str, pred: str) -> bool:
    v = judge(gold, pred, extract=False, timeout_s=30)
    assert v.error is None, (gold, pred, v)
    return v.equivalent


def _dec(v: Fraction, digits: int) -> str:
    """v as a decimal with ``digits`` digits after the point, rounded half up (exact)."""
    scaled = v * 10 ** digits
    n = (abs(scaled.numerator) * 2 + scaled.denominator) // (2 * scaled.denominator)
    s = str(n).rjust(digits + 1, "0")
    return ("-" if v < 0 else "") + s[:-digits] + "." + s[-digits:]


def test_two_decimals_are_equal_only_when_they_are_the_same_number():
    rng = random.Random(901)
    for _ in range(60):
        digits = rng.randint(1, 6)
        gold = Fraction(rng.randint(-10 ** 7, 10 ** 7), 10 ** digits)
        g = _dec(gold, digits)
        for rel in (1e-10, 1e-12, -3e-11, 1e-14):
            off = gold + max(abs(gold), Fraction(1, 10 ** digits)) * Fraction(rel)
            p = _dec(off, digits + 16).rstrip("0")
            assert Fraction(p) != gold  # another number by construction
            assert not _eq(g, p), (g, p)
        assert _eq(g, g + "000"), g  # trailing zeros state the same number
    # what a binary double adds when the number was computed in floating point
    for x, y in ((0.1, 0.2), (1.1, 2.2), (0.7, 0.1), (0.3, 0.6)):
        computed = repr(x + y)
        exact = str(Decimal(str(x)) + Decimal(str(y)))
        assert computed != exact
        assert _eq(exact, computed) and _eq(computed, exact), (exact, computed)


def test_the_sample_problems_decimal_golds_want_their_own_number():
    for gold, near in (("4.2", "4.2000000001"), ("0.375", "0.3750000001"), ("2.5", "2.4999999999"),
                       ("0.375", "0.37500000000001")):
        assert _eq(gold, gold) and not _eq(gold, near), (gold, near)


@pytest.mark.parametrize("gold,value", [(r"\frac{2}{3}", Fraction(2, 3)), (r"\frac{1}{7}", Fraction(1, 7)),
                                        (r"\frac{22}{9}", Fraction(22, 9))])
def test_a_decimal_of_a_value_no_decimal_can_write_is_right_in_every_digit(gold, value):
    for digits in (10, 12, 15):
        rounded = _dec(value, digits)
        cut = str(Decimal(value.numerator) / Decimal(value.denominator))[:len(rounded)]
        assert _eq(gold, rounded) and _eq(gold, cut), (rounded, cut)
        unit = Fraction(1, 10 ** digits)
        for wrong in (Fraction(rounded) + 2 * unit, Fraction(rounded) - 2 * unit):
            assert not _eq(gold, _dec(wrong, digits)), _dec(wrong, digits)
        # zeros after the true digits claim a precision that is not there
        assert not _eq(gold, rounded + "0000000"), rounded
    assert not _eq(gold, _dec(value, 6))  # too few digits to be the value (rel 1e-9)


def test_irrational_golds_take_their_digits_and_nothing_looser():
    for gold, digits_of in ((r"\sqrt{2}", "1.41421356237309504880168872"),
                            (r"\pi", "3.14159265358979323846264338")):
        for n in (11, 13, 16):
            assert _eq(gold, digits_of[:n]), digits_of[:n]  # cut off
        last = int(digits_of[10])
        wrong = digits_of[:10] + str((last + 3) % 10)
        assert not _eq(gold, wrong), wrong
        assert not _eq(gold, digits_of[:12] + "00000"), gold


def test_a_printed_double_of_an_irrational_is_its_value():
    import math
    assert _eq(r"\sqrt{2}", repr(math.sqrt(2))) and _eq(r"\pi", repr(math.pi))


def _line(rng: random.Random) -> tuple[int, int, int]:
    a, b = rng.choice([-3, -2, -1, 1, 2, 3, 5]), rng.choice([-4, -1, 1, 2, 7])
    return a, b, rng.randint(-9, 9)


def test_equations_off_by_any_constant_or_factor_are_other_equations():
    rng = random.Random(902)
    for _ in range(12):
        a, b, c = _line(rng)
        gold = f"{a}x + {b}y = {c}".replace("+ -", "- ")
        k = rng.choice([2, -3, 5])
        same = f"{k * a}x + {k * b}y - {k * c} = 0".replace("+ -", "- ").replace("- -", "+ ")
        assert _eq(gold, same), (gold, same)
        for tiny in ("10^{-40}", "10^{-30}x", r"\frac{1}{10^{50}}"):
            other = f"{a}x + {b}y + {tiny} = {c}".replace("+ -", "- ")
            assert not _eq(gold, other), (gold, other)
        assert not _eq(gold, f"({a}x + {b}y - {c})(1 + 10^{{-40}}x) = 0"), gold


@pytest.mark.parametrize("letter", list("xyzeiabnk"))
def test_a_variable_before_brackets_is_no_function_name(letter):
    assert not _eq("22", f"{letter}(3) = 22")


@pytest.mark.parametrize("label", ["f(3)", "g(2)", "P(1)", "h^{-1}(4)", "f_1(0)", "F(2, 3)"])
def test_function_labels_still_read(label):
    assert _eq("22", f"{label} = 22") and not _eq("22", f"{label} = 23")


def test_a_tuple_of_names_labels_only_a_tuple():
    assert not _eq("7", "(a, b) = 7")
    assert _eq("(1, 2)", "(a, b) = (1, 2)") and not _eq("(1, 2)", "(a, b) = (2, 1)")


@pytest.mark.parametrize("name", ["Mr. Smith", "Dr. Jones", "St. Louis", "Mrs. Brown"])
def test_text_golds_with_abbreviations(name):
    for style in ("**Answer:** {}", "The answer is {}.", "Therefore the answer is {}. Done.",
                  "The answer is \\boxed{{\\text{{{}}}}}"):
        v = judge(name, "Step 1: set it up. Step 2: solve it.\n\n" + style.format(name))
        assert v.error is None and v.equivalent, (name, style, v)
        v = judge(name, style.format(name.split()[0] + " Nobody"))
        assert v.error is None and not v.equivalent, (name, style, v)


# -- second hostile round and the fourth out-of-sample corpus ------------------------------

@pytest.mark.parametrize("gold,pred", [
    (r"9\pi", r"\mathrm{floor}(9\pi)"), (r"10\pi", r"\mathrm{round}(10\pi)"), ("-5", r"\mathrm{abs}(-5)"),
    ("3.7", r"\mathrm{floor}(3.7)"), (r"9\pi", r"\text{ceil}(9\pi)"),
    ("5", r"\text{neq } 5"), ("5", r"\mathrm{ne}\,5"), ("5", r"\text{all but } 5"),
    ("5", r"\text{anything but } 5"),
    ("5", "5 millionths"), ("5", "5 twelfths"), ("5", r"5 \text{ sevenths}"), ("5", "5 ppm"),
    ("25", "25 basis points"),
    ("22", "X(3) = 22"), ("22", "Y(3)=22"),
    ("x=3", "1.0000000001x=3"), ("y=2x+1", "0.5y=x+0.5000000001"),
    (r"23\pi", "72.256631"), (r"26\pi", "81.681409"),  # 8 digits that happen to be within 1e-9
])
def test_words_and_functions_that_change_the_value_are_not_dropped(gold, pred):
    assert not _eq(gold, pred), (gold, pred)


@pytest.mark.parametrize("gold,pred", [
    (r"\frac{\sqrt{2}}{2}", r"\mathrm{sin}(\pi/4)"), ("5", r"5 \text{ apples}"), ("5", "5 seconds"),
    ("144000", r"\text{144 thousand}"), ("y=2x+1", "0.5y=x+0.5"), (r"23\pi", "72.25663103"),
    ("Dr. Jones", "dr. jones"),
])
def test_their_neighbours_still_count(gold, pred):
    assert _eq(gold, pred), (gold, pred)


def test_a_bare_name_with_a_title_is_an_answer():
    for name in ("dr. jones", "DR. JONES", "Dr. Jones"):
        v = judge("Dr. Jones", name)
        assert v.error is None and v.equivalent, (name, v)
    assert not judge("Dr. Jones", "dr. smith").equivalent


def test_fewer_than_ten_digits_never_stand_for_an_irrational():
    rng = random.Random(903)
    import math
    for _ in range(40):
        k = rng.randint(2, 99)
        value = k * math.pi
        for digits in (6, 7, 8, 9):
            text = f"{value:.{digits}g}"
            assert not _eq(rf"{k}\pi", text), (k, text)
        assert _eq(rf"{k}\pi", f"{value:.12g}"), (k, value)


@pytest.mark.parametrize("response", [
    r"\boxed{4}~\boxed{3}", r"\boxed{4} \; \boxed{3}", r"\boxed{4} \\ \boxed{3}", r"\boxed{4} & \boxed{3}",
    r"\boxed{4}\text{, }\boxed{3}", r"\boxed{4} / \boxed{3}", r"\boxed{4} vs \boxed{3}",
    r"-\boxed{3}", r"$-\boxed{3}$", r"x = -\boxed{3}", r"\boxed{3}0", r"$\boxed{3}+1$", r"\boxed{3} + 1",
    r"2 \times \boxed{3}",
])
def test_a_box_beside_another_or_inside_arithmetic_is_not_the_answer(response):
    v = judge("3", response)
    assert v.error is None and not v.equivalent, (response, v)


@pytest.mark.parametrize("response", [
    r"The answer is \boxed{3}.", r"So $x = \boxed{3}$.", "Answer:\n- \\boxed{3}", r"$\boxed{3}$",
    r"\boxed{41}. Wait, that is wrong. \boxed{3}", r"\boxed{3} - that is it.", "So the answer is\n\\boxed{3}",
])
def test_a_box_on_its_own_still_is(response):
    v = judge("3", response)
    assert v.error is None and v.equivalent, (response, v)
    assert judge("45", r"\boxed{45}^\circ").equivalent


def test_a_marked_approximation_keeps_its_half_unit_whatever_its_length():
    """A third-corpus regression caught on re-run: the 10-digit rule for unmarked decimals
    returned before a marked approximation (\\approx, 6+ digits) was looked at."""
    assert _eq(r"\frac{22}{7}", r"\approx 3.14285714") and _eq(r"\frac{1}{3}", r"\approx 0.333333333")
    assert not _eq(r"\frac{1}{3}", "0.333333333") and not _eq(r"\frac{22}{7}", r"\approx 3.14159")


@pytest.mark.parametrize("gold,response", [
    ("3", "The answer is 3. Actually, it is four."), ("3", "The answer is 3. Sorry, 5."),
    ("3", "The answer is 3. Never mind, 5."), ("red", "The answer is red. Wait, it is blue."),
    ("Mr. Smith", "The answer is Mr. Smith. Wait, it is Mr. Jones."),
    ("3", "The answer is not likely to be 3."), ("3", "The answer is wrong if it is 3."),
])
def test_an_answer_taken_back_in_words_or_negated_is_no_answer(gold, response):
    v = judge(gold, response)
    assert v.error is None and not v.equivalent, (response, v)


@pytest.mark.parametrize("gold,response", [
    ("3", "The answer is 3."), ("red", "The answer is red. This is because red mixes well."),
    ("3", "The answer is 3. It is the only solution."), ("5", "The final answer is $5$ if we count carefully."),
    ("Devon", "The answer is Devon."),
])
def test_an_answer_followed_by_plain_prose_still_counts(gold, response):
    v = judge(gold, response)
    assert v.error is None and v.equivalent, (response, v)


_MARKS = [r"\approx {v}", r"\approx{v}", "≈ {v}", r"\sim {v}", r"\text{about } {v}",
          r"\text{approximately } {v}", "about {v}"]


@pytest.mark.parametrize("mark", _MARKS)
def test_a_short_marked_approximation_of_an_exact_gold_is_no_answer(mark):
    """Out-of-sample check 5: ``\\boxed{\\approx 3}`` was paid for the integer 3. A number the
    response marks approximate, with fewer digits than the tolerance needs, does not claim the
    exact value; the same number unmarked, or marked against a rounded (decimal) gold, does."""
    rng = random.Random(5)
    for _ in range(20):
        n = rng.randint(-999, 999)
        num, den = rng.randint(1, 99), rng.choice([2, 4, 5, 8, 10, 20, 25])
        exact = [(str(n), str(n)), (rf"\frac{{{num}}}{{{den}}}", str(Decimal(num) / Decimal(den)))]
        for gold, shown in exact:
            assert judge(gold, rf"\boxed{{{shown}}}").equivalent, (gold, shown)
            marked = judge(gold, r"\boxed{" + mark.replace("{v}", shown) + "}")
            assert not marked.equivalent, (gold, mark, shown, marked.reason)
        rounded = f"{rng.randint(1, 999)}.{rng.randint(10, 99)}"
        assert judge(rounded, r"\boxed{" + mark.replace("{v}", rounded) + "}").equivalent, (mark, rounded)


def test_a_marked_approximation_with_enough_digits_still_compares():
    assert judge("3", r"\boxed{\approx 3.00000}").equivalent
    assert judge(r"\pi", r"\boxed{\approx 3.14159}").equivalent
    assert not judge("3", r"\boxed{\approx 3.00001}").equivalent
