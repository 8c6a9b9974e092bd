"""samples.validate on a handful of problems (fast), its failure detection, and the full
build + validation of every sample (slow)."""

from __future__ import annotations

import shutil

import pytest

from samples import build, layout, validate

HANDFUL = ["goldbach-pair", "add-two"]


def test_validate_handful_passes():
    reports = validate.validate(HANDFUL, jobs=2)
    assert sorted(r.problem for r in reports) == sorted(HANDFUL)
    for r in reports:
        assert not r.errors, (r.problem, r.errors)
        assert r.tests >= 3 and r.runs >= r.tests
    stdio = [r for r in reports if r.problem == "goldbach-pair"]
    assert all(r.tests >= 10 and r.runs == 2 * r.tests for r in stdio)  # ref.py and ref.cpp on every test


def test_validate_catches_a_broken_reference(tmp_path):
    pdir = tmp_path / "sum-two"
    shutil.copytree(layout.STDIO / "sum-two", pdir)
    (pdir / "solutions" / "ref.py").write_text("a, b = map(int, input().split())\nprint(a - b)\n")
    (pdir / "solutions" / "expected.yaml").write_text("ref.py: AC\n")  # skip the C++ compile: keep it fast
    rep = validate.validate_stdio(layout.load(pdir), wrong=False)
    assert any(e.startswith("ref.py on test") and "WA" in e for e in rep.errors), rep.errors


def test_validate_catches_a_wrong_verdict_claim(tmp_path):
    """--wrong self-check: a 'TLE' submission that is really WA is reported."""
    pdir = tmp_path / "add-two"
    shutil.copytree(layout.FUNCTION / "add-two", pdir)
    (pdir / "solutions" / "expected.yaml").write_text("ref.py: AC\nwa_subtract.py: TLE\nre_string_concat.py: RE\n")
    rep = validate.validate_function(layout.load(pdir), wrong=True)
    assert rep.errors == ["wa_subtract.py: expected TLE, bare self-check says WA"]


def test_validate_reports_missing_tests(tmp_path):
    pdir = tmp_path / "sum-two"
    shutil.copytree(layout.STDIO / "sum-two", pdir, ignore=shutil.ignore_patterns("tests"))
    rep = validate.validate_stdio(layout.load(pdir), wrong=False)
    assert rep.errors == ["no tests (run python -m samples.build)"]


@pytest.mark.full
def test_full_build_and_validation():
    summary = build.build(jobs=2)
    assert not summary["failures"], summary["failures"]
    assert summary["problems"] >= 60 and summary["tests"] >= 600
    reports = validate.validate(jobs=2)
    bad = {r.problem: r.errors for r in reports if r.errors}
    assert not bad, bad
    assert len(reports) >= 75
