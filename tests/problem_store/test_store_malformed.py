"""Bad input is rejected with the file and line at fault, and leaves the store unchanged."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from problem_store.blobs.base import BlobStore
from problem_store.problems import ProblemStore
from problem_store.upload import upload

from tests.problem_store.store_helpers import snapshot

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "problem_formats"


@pytest.fixture
def seeded(problems):
    """A store already holding problems, so 'unchanged' is checked against real content."""
    assert upload(FIXTURES / "own" / "sum-two", problems).ok
    assert upload(FIXTURES / "gsm8k.jsonl", problems).ok
    return problems


def _copy(name: str, tmp_path: Path) -> Path:
    src = FIXTURES / name
    dest = tmp_path / "in" / src.name
    if src.is_dir():
        shutil.copytree(src, dest)
    else:
        dest.parent.mkdir(parents=True)
        shutil.copy(src, dest)
    return dest


def _line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), start=1) if needle in line)


def _rejects(store: ProblemStore, path: Path, *expected: str, strict: bool = False, fmt: str = "auto") -> str:
    before = snapshot(store.blobs)
    report = upload(path, store, fmt, strict=strict)
    assert not report.ok and report.added == [] and report.updated == []
    message = "\n".join(map(str, report.rejected))
    for part in expected:
        assert part in message, f"{part!r} not in {message!r}"
    assert snapshot(store.blobs) == before
    return message


def test_bad_yaml(seeded, tmp_path):
    d = _copy("own/sum-two", tmp_path)
    yml = d / "problem.yaml"
    yml.write_text(yml.read_text().replace("tags: [math, implementation]", "tags: [math, implementation\nx: 1"))
    _rejects(seeded, d, f"{yml}:", "invalid YAML")


def test_missing_answer_file(seeded, tmp_path):
    d = _copy("own/sum-two", tmp_path)
    (d / "tests" / "02.ans").unlink()
    _rejects(seeded, d, str(d / "tests" / "02.ans"), "missing answer")


def test_explicit_test_file_missing(seeded, tmp_path):
    d = _copy("own/near-equal", tmp_path)
    (d / "tests" / "b.ans").unlink()
    yml = d / "problem.yaml"
    _rejects(seeded, d, f"{yml}:{_line_of(yml, 'name: big')}:", "b.ans")


def test_bad_limits_name_the_yaml_line(seeded, tmp_path):
    d = _copy("own/sum-two", tmp_path)
    yml = d / "problem.yaml"
    yml.write_text(yml.read_text().replace("limits: {time_limit_s: 1.0, memory_mb: 256, output_limit_kb: 1024}",
                                           "limits:\n  memory_mb: 256\n  time_limit_s: -1\n"))
    line = _line_of(yml, "time_limit_s: -1")
    _rejects(seeded, d, f"{yml}:{line}:", "limits.time_limit_s", "greater than 0")


def test_unknown_builtin_checker_name(seeded, tmp_path):
    d = _copy("own/sum-two", tmp_path)
    yml = d / "problem.yaml"
    yml.write_text(yml.read_text().replace("name: tokens", "name: bogus"))
    _rejects(seeded, d, f"{yml}:{_line_of(yml, 'checker:')}:", "checker.name")


def test_unknown_polygon_std_checker(seeded, tmp_path):
    d = _copy("polygon/aplusb-poly", tmp_path)
    xml = d / "problem.xml"
    text = xml.read_text()
    start, end = text.index("<checker"), text.index("</checker>") + len("</checker>")
    xml.write_text(text[:start] + '<checker name="std::bogus.cpp" type="testlib"/>' + text[end:])
    _rejects(seeded, d, f"{xml}:{_line_of(xml, 'std::bogus')}:", "unknown standard checker 'std::bogus.cpp'")


def test_polygon_missing_answer(seeded, tmp_path):
    d = _copy("polygon/aplusb-poly", tmp_path)
    (d / "tests" / "03.a").unlink()
    # The custom checker could judge without answers, so make the package use a std one.
    xml = d / "problem.xml"
    text = xml.read_text()
    start, end = text.index("<checker"), text.index("</checker>") + len("</checker>")
    xml.write_text(text[:start] + '<checker name="std::ncmp.cpp" type="testlib"/>' + text[end:])
    _rejects(seeded, d, f"{xml}:{_line_of(xml, 'gen 3')}:", "03.a", "missing")


def test_checker_that_does_not_compile(seeded, tmp_path):
    d = _copy("own/near-equal", tmp_path)
    (d / "checker.cpp").write_text('#include "testlib.h"\nint main(int argc, char* argv[]) {\n  registerTestlibCmd(argc, argv)\n}\n')
    msg = _rejects(seeded, d, str(d / "checker.cpp"), "failed to compile", "error:")
    assert "expected ';'" in msg


def test_polygon_checker_needs_its_own_header(seeded, tmp_path):
    d = _copy("polygon/aplusb-poly", tmp_path)
    (d / "files" / "testlib.h").unlink()
    _rejects(seeded, d, "check.cpp", "testlib.h")


def test_bad_json_line_names_the_line(seeded, tmp_path):
    f = _copy("humaneval.jsonl", tmp_path)
    lines = f.read_text().splitlines()
    f.write_text(lines[0] + "\n" + lines[1][:-5] + "\n")
    _rejects(seeded, f, f"{f}:2:", "invalid JSON", strict=True)
    # Without --strict the good line 1 goes in and only line 2 is rejected.
    report = upload(f, seeded)
    assert report.added == ["HumanEval-0"] and [r.where for r in report.rejected] == [f"{f}:2"]


def test_jsonl_bad_limits_and_missing_fields(seeded, tmp_path):
    f = tmp_path / "cc.jsonl"
    rec = json.loads((FIXTURES / "codecontests.jsonl").read_text().splitlines()[0])
    rec["time_limit"] = {"seconds": 100, "nanos": 0}
    f.write_text("\n" + json.dumps(rec) + "\n")
    _rejects(seeded, f, f"{f}:2:", "limits.time_limit_s", fmt="codecontests")
    g = tmp_path / "he.jsonl"
    g.write_text(json.dumps({"task_id": "X/1", "prompt": "def f():\n", "test": "assert True", "entry_point": "f"}) + "\n")
    _rejects(seeded, g, f"{g}:1:", "check(candidate)")


def test_strict_rolls_back_added_and_updated(seeded, tmp_path):
    s = tmp_path / "set"
    shutil.copytree(FIXTURES / "own" / "sum-two", s / "a-sum-two")
    (s / "a-sum-two" / "problem.yaml").write_text(
        (s / "a-sum-two" / "problem.yaml").read_text().replace("title: Sum of two numbers", "title: Changed"))
    (s / "a-sum-two" / "tests" / "02.ans").write_bytes(b"new answer\n")
    shutil.copytree(FIXTURES / "own" / "add-func", s / "b-add-func")
    shutil.copytree(FIXTURES / "own" / "half-plus-third", s / "c-bad")
    (s / "c-bad" / "problem.yaml").write_text("kind: math\nquestion: q\n")  # no answer
    msg = _rejects(seeded, s, strict=True)
    assert "answer" in msg
    assert seeded.get("sum-two").title == "Sum of two numbers"
    report = upload(s, seeded)  # not strict: the good ones go in
    assert report.updated == ["sum-two"] and report.added == ["b-add-func"] and len(report.rejected) == 1


class FlakyStore(BlobStore):
    """Delegates to a real store but fails the n-th blob write (a store outage mid-upload)."""

    def __init__(self, inner: BlobStore, fail_at: int):
        self.inner, self.fail_at, self.puts = inner, fail_at, 0
        self.uri = inner.uri
        self.io_concurrency = 1

    def put(self, data):
        self.puts += 1
        if self.puts == self.fail_at:
            raise OSError("simulated outage")
        return self.inner.put(data)

    def __getattr__(self, name):
        return getattr(self.inner, name)

    get = property(lambda self: self.inner.get)
    exists = property(lambda self: self.inner.exists)
    delete = property(lambda self: self.inner.delete)
    iter_links = property(lambda self: self.inner.iter_links)
    size = property(lambda self: self.inner.size)
    put_object = property(lambda self: self.inner.put_object)
    get_object = property(lambda self: self.inner.get_object)
    delete_object = property(lambda self: self.inner.delete_object)
    list_objects = property(lambda self: self.inner.list_objects)
    object_version = property(lambda self: self.inner.object_version)
    blob_mtime = property(lambda self: self.inner.blob_mtime)


def test_write_failure_midway_leaves_no_trace(seeded, tmp_path):
    flaky = ProblemStore(FlakyStore(seeded.blobs, fail_at=3))
    before = snapshot(seeded.blobs)
    report = upload(FIXTURES / "own" / "near-equal", flaky)
    assert [r.problem_id for r in report.rejected] == ["near-equal"]
    assert "simulated outage" in str(report.rejected[0])
    assert snapshot(seeded.blobs) == before
