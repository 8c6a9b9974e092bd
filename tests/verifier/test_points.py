"""The points convention: a checker's quitp(x) is absolute, as on Polygon (docs/problem-format.md)."""

import pytest

from sandboxes.types import RunResult, Status
from verifier.checkers.custom import outcome_of, parse_points
from verifier.judging.verdicts import fill_points
from verifier.models import TestVerdict, Verdict


def _tv(verdict="AC"):
    return TestVerdict(name="t", verdict=verdict, message="m")


@pytest.mark.parametrize("awarded,worth,verdict,points", [
    (3.0, 10.0, "WA", 3.0),      # the case: a 10-point test with quitp(3) earns 3, not 10
    (10.0, 10.0, "AC", 10.0),
    (0.0, 10.0, "WA", 0.0),
    (9.9999999999, 10.0, "AC", 9.9999999999),  # printed with 10 decimals
    (0.5, None, "WA", 0.5),      # a test without declared points is worth 1
    (1.0, None, "AC", 1.0),
])
def test_awarded_points_are_absolute(awarded, worth, verdict, points):
    tv = _tv()
    fill_points(tv, worth, awarded)
    assert (tv.verdict, tv.points, tv.max_points) == (verdict, pytest.approx(points), worth or 1.0)


@pytest.mark.parametrize("awarded,worth", [(15.0, 10.0), (2.0, None), (-1.0, 10.0)])
def test_points_outside_the_test_worth_are_ie(awarded, worth):
    tv = _tv()
    fill_points(tv, worth, awarded)
    assert tv.verdict == Verdict.IE and tv.points == 0.0 and "worth" in tv.message


def test_no_points_means_all_or_nothing():
    ac, wa = _tv("AC"), _tv("WA")
    fill_points(ac, 7.0, None)
    fill_points(wa, 7.0, None)
    assert (ac.points, wa.points) == (7.0, 0.0)


@pytest.mark.parametrize("text,value", [
    ("points 3", 3.0), ("points 3 partial", 3.0), ("points 2.5000000000 ok", 2.5),
    ("0.75 fraction first", 0.75), ("points 1e2", 100.0),
    ("wrong answer 3 tokens", None), ("points x", None), ("", None), ("3rd test", None),
])
def test_parse_points_reads_testlib_quitp_text(text, value):
    assert parse_points(text) == value


def test_exit_7_carries_the_awarded_points():
    run = RunResult(id="t", status=Status.RE, exit_code=7, stderr=b"points 3 three of ten")
    out = outcome_of(run)
    assert out.points == 3.0
    tv = TestVerdict(name="t", verdict=out.verdict, message=out.message)
    fill_points(tv, 10.0, out.points)
    assert (tv.verdict, tv.points) == ("WA", 3.0)
    run = RunResult(id="t", status=Status.RE, exit_code=7, stderr=b"no score here")
    assert outcome_of(run).verdict == "IE"
