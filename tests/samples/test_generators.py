"""Generators: deterministic across processes, matching the committed tests, and the
statements' examples agree with the reference logic."""

from __future__ import annotations

import filecmp
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from samples import genlib, layout

REPO = layout.ROOT.parent
STDIO = layout.problems("stdio")
SMALL = ["sum-two", "fizzbuzz", "seat-shuffle", "maze-path"]


def load_gen(problem_dir: Path):
    spec = importlib.util.spec_from_file_location(f"gen_{problem_dir.name.replace('-', '_')}", problem_dir / "gen.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def ignored_tests() -> set[str]:
    return set((layout.ROOT / ".gitignore").read_text().split())


@pytest.mark.parametrize("pid", SMALL)
def test_generator_is_deterministic_across_processes(pid, tmp_path):
    pdir = layout.STDIO / pid
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONHASHSEED="random")
    subprocess.run([sys.executable, str(pdir / "gen.py"), "--out", str(tmp_path / "a")],
                   check=True, capture_output=True, env=env, cwd=REPO)
    gen = load_gen(pdir)
    n = genlib.write_tests(tmp_path / "b", pid, gen.cases, gen.solve)
    assert n >= 10
    names = sorted(f.name for f in (tmp_path / "a").iterdir())
    assert names == sorted(f.name for f in (tmp_path / "b").iterdir())
    match, mismatch, errors = filecmp.cmpfiles(tmp_path / "a", tmp_path / "b", names, shallow=False)
    assert not mismatch and not errors
    committed = pdir / "tests"
    if committed.is_dir() and f"stdio/{pid}/tests/" not in ignored_tests():
        match, mismatch, errors = filecmp.cmpfiles(committed, tmp_path / "a", names, shallow=False)
        assert not mismatch and not errors, f"committed tests of {pid} are stale: run python -m samples.build"


def test_write_tests_removes_stale_files(tmp_path):
    (tmp_path / "99.in").write_text("old")
    (tmp_path / "99.ans").write_text("old")
    n = genlib.write_tests(tmp_path, "x", lambda rng: ["1\n"] * 3, lambda s: s)
    assert n == 3 and not (tmp_path / "99.in").exists()
    assert sorted(f.name for f in tmp_path.iterdir()) == ["01.ans", "01.in", "02.ans", "02.in", "03.ans", "03.in"]


def test_committed_test_sets_are_complete():
    """Every committed (not gitignored) test set has >= 10 tests, each .in with its .ans."""
    ignored = ignored_tests()
    for p in STDIO:
        tests = p.path / "tests"
        if f"stdio/{p.id}/tests/" in ignored:
            continue
        ins = sorted(tests.glob("*.in"))
        assert len(ins) >= 10, p.id
        for f in ins:
            assert f.with_suffix(".ans").is_file(), f


EXAMPLE_RE = re.compile(r"## Example\s+Input:\s+```\n(.*?)```\s+Output:\s+```\n(.*?)```", re.S)


@pytest.mark.parametrize("p", STDIO, ids=lambda p: p.id)
def test_statement_example_matches_reference_logic(p):
    m = EXAMPLE_RE.search((p.path / "statement.md").read_text())
    assert m, "statement has an Example with Input and Output blocks"
    gen = load_gen(p.path)
    assert gen.solve(m[1]).split() == m[2].split()
