"""The checker semantics samples.validate judges with, and the custom checkers' exit-code
contract (0 OK, 1 WA, 2 PE, 3 FAIL), exercised on real compiled binaries."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from samples import checkers, layout
from samples.runbare import compile_cpp


@pytest.mark.parametrize("name,out,ans,verdict", [
    ("integers", b"3\n", b"3\n", "OK"),
    ("integers", b"3.0\n", b"3\n", "PE"),          # a float where an integer is due: PE, not WA
    ("integers", b"4\n", b"3\n", "WA"),
    ("integers", b"+3 -0\n", b"3 0\n", "OK"),
    ("tokens", b"a  b\n\n", b"a b", "OK"),
    ("tokens", b"a b c", b"a b", "WA"),
    ("lines", b"x 1  \ny\n\n\n", b"x 1\ny\n", "OK"),
    ("lines", b"x  1\n", b"x 1\n", "WA"),
    ("exact", b"1\n", b"1", "WA"),
    ("floats", b"3.1415927\n", b"3.14159265\n", "OK"),
    ("floats", b"3.14\n", b"3.14159265\n", "WA"),
    ("floats", b"nan\n", b"1.0\n", "WA"),             # NaN is never equal
    ("floats", b"abc\n", b"1.0\n", "PE"),
    ("yesno", b"yes\n", b"YES\n", "OK"),
    ("yesno", b"maybe\n", b"YES\n", "PE"),
    ("unordered", b"2 1 3", b"1 2 3", "OK"),
])
def test_builtin_semantics(name, out, ans, verdict):
    assert checkers.builtin(name, out, ans)[0] == verdict


def test_unknown_builtin_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown builtin checker"):
        checkers.builtin("fuzzy", b"", b"")


@pytest.fixture(scope="module")
def two_sum_checker(tmp_path_factory):
    if shutil.which("g++") is None:
        pytest.skip("g++ not installed")
    binary = tmp_path_factory.mktemp("chk") / "checker"
    ok, err = compile_cpp(layout.STDIO / "two-sum-any" / "checker.cpp", binary, (layout.STDIO_INCLUDE,))
    assert ok, err
    return binary


@pytest.mark.parametrize("output,answer,verdict", [
    (b"1 2\n", b"1 2\n", "OK"),
    (b"2 1\n", b"1 2\n", "OK"),          # either order is a valid pair
    (b"1 3\n", b"1 2\n", "WA"),          # 2 + 11 != 9
    (b"1 1\n", b"1 2\n", "WA"),          # same position twice
    (b"-1\n", b"1 2\n", "WA"),           # claims no pair
    (b"1,2\n", b"1 2\n", "PE"),          # malformed token
    (b"1\n", b"1 2\n", "PE"),            # missing second index
    (b"1 2 3\n", b"1 2\n", "PE"),        # extra output
    (b"1 2\n", b"-1\n", "FAIL"),         # the jury said impossible: jury error, never WA
])
def test_custom_checker_exit_codes(two_sum_checker, tmp_path, output, answer, verdict):
    inp = tmp_path / "in"
    inp.write_bytes(b"4 9\n2 7 11 15\n")
    ans = tmp_path / "ans"
    ans.write_bytes(answer)
    got, msg = checkers.custom(two_sum_checker, inp, output, ans, tmp_path)
    assert got == verdict, msg
    assert msg, "a one-line message on stderr"


def test_custom_checker_usage_error_is_fail(two_sum_checker):
    proc = subprocess.run([str(two_sum_checker)], capture_output=True)
    assert proc.returncode == 3
