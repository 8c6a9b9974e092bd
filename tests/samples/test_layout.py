"""Shape of the sample sets: counts, the 30/20/10 design, verdict coverage, splits, and
metadata that the project's manifest models accept."""

from __future__ import annotations

import ast
import collections
import re

import pytest
import yaml

from problem_store import manifest
from samples import layout

STDIO = layout.problems("stdio")
FUNCTION = layout.problems("function")
FAKE_LINK = "blob://sha256/" + "0" * 64


def test_counts_and_design():
    assert len(STDIO) >= 60
    cats = collections.Counter(layout.category(p) for p in STDIO)
    assert cats["beginner"] >= 30 and cats["intermediate"] >= 20 and cats["special"] >= 10, cats
    assert len(FUNCTION) >= 15


def test_ids_unique_and_match_directories():
    ids = [p.id for p in STDIO + FUNCTION]
    assert len(ids) == len(set(ids))
    for p in STDIO + FUNCTION:
        assert p.id == p.path.name
        assert re.fullmatch(manifest.PROBLEM_ID_RE, p.id)


@pytest.mark.parametrize("p", STDIO, ids=lambda p: p.id)
def test_stdio_problem_files(p):
    for name in ("problem.yaml", "statement.md", "gen.py", "solutions/ref.py", "solutions/ref.cpp"):
        assert (p.path / name).is_file(), name
    st = (p.path / "statement.md").read_text()
    for section in ("## Input", "## Output", "## Example"):
        assert section in st, section
    assert p.expected.get("ref.py") == "AC" and p.expected.get("ref.cpp") == "AC"
    wrong = {n: v for n, v in p.expected.items() if v != "AC"}
    assert wrong, "every problem needs at least one known-wrong submission"
    for name, verdict in wrong.items():
        if verdict == "CE":
            assert name.endswith(".cpp"), "CE submissions are C++ (a Python syntax error is judged RE by some judges)"
        if verdict == "PE":
            checker = p.meta["checker"]
            assert checker.get("type") == "custom" or checker.get("name") == "integers", \
                "PE only where the checker can say PE: integers or a custom checker"
    if p.meta["checker"].get("type") == "custom":
        assert (p.path / p.meta["checker"]["source"]).is_file()
        assert not re.search(r"#include\s*[<\"]testlib", (p.path / p.meta["checker"]["source"]).read_text())


@pytest.mark.parametrize("p", STDIO, ids=lambda p: p.id)
def test_stdio_metadata_fits_the_manifest_model(p):
    """problem.yaml's fields are the manifest's own: the uploader can pass them through."""
    m = dict(p.meta)
    checker = dict(m.pop("checker"))
    if checker.get("type") == "custom":
        checker = {"type": "custom", "language": checker.get("language", "cpp"),
                   "source": FAKE_LINK, "binary": FAKE_LINK}
    m["checker"] = checker
    m["statement"] = (p.path / "statement.md").read_text()
    m["tests"] = [{"name": "01", "input": FAKE_LINK, "answer": FAKE_LINK}]
    parsed = manifest.parse_problem(m)
    assert parsed.kind == "stdio" and parsed.split in ("train", "heldout")


@pytest.mark.parametrize("p", FUNCTION, ids=lambda p: p.id)
def test_function_problem_files(p):
    m = p.meta
    prompt = (p.path / m["prompt"]).read_text()
    ref = (p.path / "solutions" / "ref.py").read_text()
    assert ref.startswith(prompt), "the reference completes the prompt"
    tree = ast.parse(ref)
    assert any(isinstance(n, ast.FunctionDef) and n.name == m["entry_point"] for n in tree.body)
    tests = sorted((p.path / "tests").glob("*.py"))
    assert len(tests) >= 3, "several test files, so per-test verdicts mean something"
    for t in tests:
        src = t.read_text()
        ast.parse(src)
        if m["harness"] == "humaneval":
            assert "def check(candidate)" in src
        else:
            assert m["entry_point"] in src
    assert set(p.expected.values()) - {"AC"}, "needs a known-wrong submission"
    assert set(p.expected.values()) <= {"AC", "WA", "TLE", "RE"}
    fields = {k: v for k, v in m.items() if k != "prompt"}
    fields.update(prompt=prompt, tests=[{"name": t.stem, "code": FAKE_LINK} for t in tests])
    assert manifest.parse_problem(fields).kind == "function"


def test_every_verdict_class_on_at_least_five_stdio_problems():
    per_verdict = collections.defaultdict(set)
    for p in STDIO:
        for v in p.expected.values():
            per_verdict[v].add(p.id)
    for v in ("WA", "TLE", "RE", "MLE", "CE", "PE"):
        assert len(per_verdict[v]) >= 5, (v, sorted(per_verdict[v]))


def test_function_verdicts_cover_wa_tle_re():
    per_verdict = collections.defaultdict(set)
    for p in FUNCTION:
        for v in p.expected.values():
            per_verdict[v].add(p.id)
    for v in ("WA", "TLE", "RE"):
        assert len(per_verdict[v]) >= 5, (v, sorted(per_verdict[v]))
    assert {p.meta["harness"] for p in FUNCTION} == {"asserts", "humaneval"}


def test_splits_stratified():
    groups = collections.defaultdict(list)
    for p in STDIO + FUNCTION:
        assert p.meta.get("split") in ("train", "heldout"), p.id
        groups[(p.kind, layout.category(p))].append(p.meta["split"])
    for key, splits in groups.items():
        frac = splits.count("heldout") / len(splits)
        assert 0.2 <= frac <= 0.35, (key, frac)
    beginner = [p for p in STDIO if layout.category(p) == "beginner"]
    assert sum(p.meta["split"] == "heldout" for p in beginner) >= 8


def test_big_tests_are_gitignored():
    """Tests of several MB are generated by samples.build, never committed."""
    ignore = (layout.ROOT / ".gitignore").read_text().split()
    for p in STDIO:
        tests = p.path / "tests"
        if tests.is_dir():
            size = sum(f.stat().st_size for f in tests.iterdir())
            if size > 1_000_000:
                assert f"stdio/{p.id}/tests/" in ignore, f"{p.id}: {size} bytes of tests not in samples/.gitignore"


def test_expected_yaml_lists_every_solution_file():
    for p in STDIO + FUNCTION:
        files = {f.name for f in (p.path / "solutions").iterdir() if f.name != "expected.yaml"}
        listed = set(yaml.safe_load((p.path / "solutions" / "expected.yaml").read_text()))
        assert files == listed, p.id
