"""Built-in checkers: testlib stock semantics, one case per rule that matters."""

import pytest

from problem_store.manifest import BuiltinChecker
from verifier.checkers.builtin import check_builtin, floats_equal


def v(name, out, ans, **kw):
    return check_builtin(BuiltinChecker(name=name, **kw), out, ans).verdict


def test_exact_is_byte_for_byte():
    assert v("exact", b"1 2\n", b"1 2\n") == "AC"
    assert v("exact", b"1 2", b"1 2\n") == "WA"


def test_lines_ignores_trailing_space_and_blank_lines_only():
    assert v("lines", b"a b  \nc\n\n\n", b"a b\nc") == "AC"
    assert v("lines", b"a  b\nc", b"a b\nc") == "WA"  # inner spacing matters
    assert v("lines", b"a\r\nb\r\n", b"a\nb\n") == "AC"
    assert v("lines", b"A\n", b"a\n", case_sensitive=False) == "AC"


def test_tokens_ignores_whitespace_layout_but_not_extra_tokens():
    assert v("tokens", b"1\n2   3\n", b"1 2 3") == "AC"
    assert v("tokens", b"1 2 3 4", b"1 2 3") == "WA"
    assert v("tokens", b"1 2", b"1 2 3") == "WA"
    assert v("tokens", b"Yes", b"yes") == "WA"
    assert v("tokens", b"Yes", b"yes", case_sensitive=False) == "AC"


def test_integers_non_integer_token_is_pe_and_values_compare_numerically():
    assert v("integers", b"+5 007", b"5 7") == "AC"
    assert v("integers", b"5 7.0", b"5 7") == "PE"
    assert v("integers", b"5 8", b"5 7") == "WA"
    assert v("integers", b"123456789012345678901234567890", b"123456789012345678901234567890") == "AC"
    assert v("integers", b"5", b"5 x") == "IE"  # a bad jury answer is ours, never WA


def test_integers_longer_than_int_parsing_allows_are_compared_not_crashed():
    # Python refuses int() of more than 4,300 digits; the checker once raised there (HTTP 500
    # for the whole batch: a hostile output wiped its group's rewards).
    big = b"1" * 4301
    assert v("integers", big, b"7") == "WA"
    assert v("integers", big + b" 3", big + b" 3") == "AC"
    assert v("integers", b"-" + b"0" * 5000 + big, b"-" + big) == "AC"
    assert v("integers", big + b"0", big) == "WA"


def test_integers_agree_with_int_on_generated_tokens():
    """Oracle: Python's own int() (digit limit lifted) on tokens built to hit signs, zeros
    and near misses; truth by construction, not by the checker's rule."""
    import random
    import sys
    rng = random.Random(12)
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        for _ in range(3000):
            digits = "".join(rng.choice("0123456789") for _ in range(rng.choice([1, 2, 5, 30, 5000])))
            a = rng.choice(["", "+", "-"]) + "0" * rng.randrange(3) + digits
            b = rng.choice([a, a.lstrip("+-"), "-" + a.lstrip("+-"), "+" + a.lstrip("+-"),
                            a + "0", a[:-1] + str((int(a[-1]) + 1) % 10), "0" * 4 + a.lstrip("+-")])
            want = "AC" if int(a) == int(b) else "WA"
            assert v("integers", a.encode(), b.encode()) == want, (a[:40], b[:40])
    finally:
        sys.set_int_max_str_digits(old)


def test_unordered_compares_multisets():
    assert v("unordered", b"3 1 2 2", b"2 1 2 3") == "AC"
    assert v("unordered", b"3 1 2", b"2 1 2 3") == "WA"
    assert v("unordered", b"1 1 2", b"1 2 2") == "WA"


def test_floats_tolerances_and_nan():
    assert v("floats", b"0.3333333", b"0.33333333333") == "AC"
    assert v("floats", b"1000000.5", b"1000000.0", abs_tol=1e-9, rel_tol=1e-6) == "AC"  # relative
    assert v("floats", b"1.01", b"1.0", abs_tol=1e-3, rel_tol=1e-3) == "WA"
    assert v("floats", b"nan", b"nan") == "WA"  # NaN is never equal, not even to NaN
    assert v("floats", b"inf", b"inf") == "AC"
    assert v("floats", b"abc", b"1.0") == "PE"
    assert v("floats", b"1.0 2.0", b"1.0") == "WA"
    assert not floats_equal(float("nan"), 1.0, 1.0, 1.0)


@pytest.mark.parametrize("out,verdict", [(b"yes", "AC"), (b"YES\n", "AC"), (b"No", "WA"),
                                         (b"maybe", "PE"), (b"", "PE"), (b"yes yes", "PE")])
def test_yesno_case_insensitive(out, verdict):
    assert v("yesno", out, b"Yes\n") == verdict


def test_yesno_bad_jury_answer_is_ie():
    assert v("yesno", b"yes", b"perhaps") == "IE"


def test_messages_name_the_difference():
    out = check_builtin(BuiltinChecker(name="tokens"), b"1 5 3", b"1 2 3")
    assert "2nd" in out.message and "'2'" in out.message and "'5'" in out.message


# testlib's stock checkers by name: the cases the review found wrong on the old mapping
# (the full comparison with the real checkers is test_stock_differential.py).
@pytest.mark.parametrize("name,out,ans,verdict", [
    ("ncmp", b"+5", b"5", "PE"), ("ncmp", b"05", b"5", "PE"), ("ncmp", b"-0", b"0", "PE"),
    ("ncmp", b"5", b"9223372036854775808", "IE"),   # the jury's overflow is FAIL, never AC
    ("ncmp", b"1 2", b"1 2 3", "WA"), ("ncmp", b"1 2 x", b"1 2", "PE"),
    ("wcmp", b"a\x0bb", b"a b", "WA"), ("wcmp", b"a\x0cb", b"a\x0cb", "AC"),
    ("wcmp", b"\xef\xbb\xbfa b", b"a b", "AC"),
    ("lcmp", b"1  2\n", b"1 2\n", "AC"), ("lcmp", b"1\n2\n", b"1 2\n", "WA"),
    ("lcmp", b"1 2\nextra\n", b"1 2\n", "PE"),
    ("fcmp", b"a \n", b"a\n", "WA"), ("fcmp", b"a\r\n", b"a\n", "AC"),
    ("yesno", b"yes no", b"YES", "PE"), ("yesno", b"no yes", b"YES", "WA"),
    ("yesno", b"", b"maybe", "PE"), ("yesno", b"yes", b"maybe", "IE"),
    ("rcmp6", b"1", b"1 2", "PE"), ("rcmp6", b"nan", b"1", "PE"), ("rcmp6", b"1 2 3", b"1 2", "PE"),
    ("rcmp6", b"1.0000005", b"1", "AC"), ("rcmp6", b"1.00001", b"1", "WA"), ("rcmp6", b"1e", b"1", "AC"),
    ("rcmp6", b"1", b"nan", "IE"), ("rcmp6", b"1e400", b"1e301", "AC"),
    ("hcmp", b"123456789012345678901234567890", b"123456789012345678901234567890", "AC"),
    ("hcmp", b"-0", b"0", "PE"), ("icmp", b"2147483648", b"1", "PE"),
    ("nyesno", b"YES no", b"yes NO", "AC"), ("nyesno", b"YES", b"yes NO", "WA"),
])
def test_stock_checkers_follow_testlib(name, out, ans, verdict):
    assert v(name, out, ans) == verdict
