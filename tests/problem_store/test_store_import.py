"""Every supported format uploads from its fixture, and exports back round-trip."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from problem_store.export import export_problem
from problem_store.importers import detect_format
from problem_store.manifest import CustomChecker, FunctionProblem, MathProblem, StdioProblem, dump_problem
from problem_store.upload import upload

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "problem_formats"

CASES = {
    # fixture -> (format detected, {problem id: kind})
    "own": ("own", {"sum-two": "stdio", "near-equal": "stdio", "add-func": "function", "half-plus-third": "math"}),
    "polygon": ("polygon", {"aplusb-poly": "stdio"}),
    "codecontests.jsonl": ("codecontests", {"1548_E-Gregor-and-the-Two-Painters": "stdio", "1000_A-Echo": "stdio"}),
    "taco.jsonl": ("taco", {"taco-1": "stdio", "taco-2": "function", "taco-3": "function"}),
    "humaneval.jsonl": ("humaneval", {"HumanEval-0": "function", "HumanEval-1": "function"}),
    "mbpp.jsonl": ("mbpp", {"mbpp-11": "function", "mbpp-12": "function"}),
    "gsm8k.jsonl": ("math", {"gsm8k-1": "math", "gsm8k-2": "math"}),
    "competition_math.jsonl": ("math", {"competition_math-1": "math", "competition_math-2": "math"}),
}


@pytest.mark.parametrize("fixture", list(CASES))
def test_upload_each_format_and_round_trip(fixture, problems, tmp_path):
    fmt, expected = CASES[fixture]
    path = FIXTURES / fixture
    if path.is_file():
        assert detect_format(path) == fmt
    report = upload(path, problems)
    assert report.rejected == []
    assert sorted(report.added) == sorted(expected)
    assert {s.id: s.kind for s in problems.list()} == expected
    # Export each problem in the own format and upload that: nothing may change.
    before = {pid: problems.get_bytes(pid) for pid in expected}
    for pid in expected:
        export_problem(problems, pid, tmp_path / "exported")
    again = upload(tmp_path / "exported", problems, "own")
    assert again.rejected == [] and sorted(again.unchanged) == sorted(expected), again.summary()
    assert {pid: problems.get_bytes(pid) for pid in expected} == before
    # And the same with --format given explicitly.
    assert upload(path, problems, fmt).unchanged and not upload(path, problems, fmt).added


def test_own_format_details(problems):
    upload(FIXTURES / "own", problems)
    s = problems.get("sum-two")
    assert isinstance(s, StdioProblem)
    assert [t.name for t in s.tests] == ["01", "02", "10"]  # natural order
    assert problems.blobs.get(s.tests[1].input) == b"40 2\n"
    assert problems.blobs.get(s.tests[1].answer) == b"42\n"
    assert s.statement.startswith("Read two integers") and s.split == "train" and s.limits.time_limit_s == 1.0
    n = problems.get("near-equal")
    assert isinstance(n.checker, CustomChecker)
    assert set(n.checker.headers) == {"testlib.h"}
    assert [(t.name, t.group, t.points, t.sample) for t in n.tests] == [
        ("small", None, None, True), ("big", "big", 10.0, False)]
    f = problems.get("add-func")
    assert isinstance(f, FunctionProblem) and f.entry_point == "add" and f.prompt.startswith("def add(")
    assert problems.blobs.get(f.tests[0].code) == b"assert add(1, 2) == 3\n"
    m = problems.get("half-plus-third")
    assert isinstance(m, MathProblem) and m.answer == "\\frac{5}{6}"


def test_jsonl_field_mapping(problems):
    for name in ("codecontests.jsonl", "taco.jsonl", "humaneval.jsonl", "mbpp.jsonl", "gsm8k.jsonl",
                 "competition_math.jsonl"):
        assert upload(FIXTURES / name, problems).ok
    cc = problems.get("1548_E-Gregor-and-the-Two-Painters")
    assert [t.name for t in cc.tests] == ["public-01", "private-01", "private-02", "generated-01"]
    assert cc.tests[0].sample and not cc.tests[1].sample
    assert cc.limits.time_limit_s == 2.5 and cc.limits.memory_mb == 256
    assert cc.tags == ("math",) and cc.difficulty == "cf-800"
    assert problems.get("1000_A-Echo").limits.time_limit_s == 2.0  # null time limit: default
    t1 = problems.get("taco-1")
    assert t1.limits.time_limit_s == 1.0 and problems.blobs.get(t1.tests[1].answer) == b"100\n"
    t3 = problems.get("taco-3")
    assert t3.entry_point == "total" and b"Solution().total" in problems.blobs.get(t3.tests[0].code)
    assert t3.entry_class == "Solution" and problems.get("taco-2").entry_class is None
    he = problems.get("HumanEval-0")
    assert he.harness == "humaneval" and he.entry_point == "add" and he.title == "HumanEval/0"
    mb = problems.get("mbpp-12")
    assert mb.entry_point == "sort_matrix" and mb.setup_code == "import math"
    assert [t.name for t in mb.tests] == ["01", "challenge-01"]
    assert problems.get("mbpp-11").entry_point == "remove_Occ"
    assert problems.get("gsm8k-1").answer == "72"
    assert problems.get("gsm8k-1").solution.endswith("altogether in April and May.")
    assert problems.get("gsm8k-2").answer == "1200"
    assert problems.get("competition_math-1").answer == "\\frac{5}{6}"
    assert problems.get("competition_math-1").difficulty == "Level 1"
    assert problems.get("competition_math-2").answer == "4"


def _run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(["/usr/bin/python3", "-c", code], capture_output=True, text=True, timeout=30)


def test_function_tests_run_against_a_reference(problems):
    """The generated test code is real Python: it passes a right answer and fails a wrong one."""
    upload(FIXTURES / "taco.jsonl", problems)
    upload(FIXTURES / "mbpp.jsonl", problems)
    cases = [("taco-2", "def double(x):\n    return 2 * x\n", "def double(x):\n    return x\n"),
             ("taco-3", "class Solution:\n    def total(self, xs):\n        return sum(xs)\n",
              "class Solution:\n    def total(self, xs):\n        return 0\n"),
             ("mbpp-12", "def sort_matrix(M):\n    return sorted(M, key=sum)\n", "def sort_matrix(M):\n    return M\n")]
    for pid, right, wrong in cases:
        p = problems.get(pid)
        for t in p.tests:
            body = problems.blobs.get(t.code).decode()
            assert _run_python(p.setup_code + "\n" + right + "\n" + body).returncode == 0, (pid, t.name)
        first = problems.blobs.get(p.tests[0].code).decode()
        assert _run_python(p.setup_code + "\n" + wrong + "\n" + first).returncode != 0, pid


def test_dedup_counts(problems):
    first = upload(FIXTURES / "own" / "sum-two", problems)
    # tests 01 and 10 are the same bytes: the second copy is deduplicated within the problem
    assert first.bytes_deduplicated == len(b"1 2\n") + len(b"3\n")
    assert first.blobs_written == 4
    renamed = upload(FIXTURES / "own" / "sum-two", problems, id_prefix="copy-")
    assert renamed.added == ["copy-sum-two"] and renamed.blobs_written == 0
    assert renamed.bytes_written == 0
    assert renamed.bytes_deduplicated == sum(len(b) for b in (b"1 2\n", b"3\n", b"40 2\n", b"42\n", b"1 2\n", b"3\n"))
    assert dump_problem(problems.get("copy-sum-two")).replace(b"copy-sum-two", b"sum-two") == \
        problems.get_bytes("sum-two")


def test_update_and_split_override(problems, tmp_path):
    import shutil

    src = tmp_path / "sum-two"
    shutil.copytree(FIXTURES / "own" / "sum-two", src)
    assert upload(src, problems).added == ["sum-two"]
    (src / "tests" / "02.ans").write_bytes(b"43\n")
    r = upload(src, problems, split="heldout")
    assert r.updated == ["sum-two"] and r.blobs_written == 1
    p = problems.get("sum-two")
    assert p.split == "heldout" and problems.blobs.get(p.tests[1].answer) == b"43\n"


def test_set_level_include_serves_every_checker_and_exports_self_contained(problems, tmp_path):
    """A checker header missing beside problem.yaml comes from SET/include/; the stored
    problem carries its own copy, so its export uploads alone; a header in the problem
    directory shadows the shared one."""
    import shutil

    header = (FIXTURES / "own" / "near-equal" / "testlib.h").read_bytes()
    s = tmp_path / "set"
    shutil.copytree(FIXTURES / "own" / "near-equal", s / "near-equal")
    (s / "near-equal" / "testlib.h").unlink()
    (s / "include").mkdir()
    (s / "include" / "testlib.h").write_bytes(header)
    assert upload(s, problems).added == ["near-equal"]  # include/ is not taken for a problem
    n = problems.get("near-equal")
    assert problems.blobs.get(n.checker.headers["testlib.h"]) == header
    export_problem(problems, "near-equal", tmp_path / "out")
    assert (tmp_path / "out" / "near-equal" / "testlib.h").read_bytes() == header
    assert upload(tmp_path / "out" / "near-equal", problems).unchanged == ["near-equal"]

    (s / "include" / "testlib.h").write_bytes(b"#error the problem's own header must win\n")
    (s / "near-equal" / "testlib.h").write_bytes(header)
    assert upload(s, problems).unchanged == ["near-equal"]


def test_missing_or_escaping_checker_header_is_rejected_by_name(problems, tmp_path):
    import shutil

    s = tmp_path / "set"
    shutil.copytree(FIXTURES / "own" / "near-equal", s / "near-equal")
    (s / "near-equal" / "testlib.h").unlink()
    r = upload(s, problems)
    assert r.added == [] and "checker header 'testlib.h' not found" in str(r.rejected[0])
    assert str(s / "include") in str(r.rejected[0]) and problems.list() == []

    (s / "include").mkdir()
    (s / "include" / "testlib.h").write_bytes((FIXTURES / "own" / "near-equal" / "testlib.h").read_bytes())
    yml = s / "near-equal" / "problem.yaml"
    yml.write_text(yml.read_text().replace("headers: [testlib.h]", "headers: [../include/testlib.h]"))
    r = upload(s, problems)
    assert r.added == [] and "points outside the problem directory" in str(r.rejected[0])
