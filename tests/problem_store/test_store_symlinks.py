"""No file outside a problem directory is ever read: symlinks that leave it are refused.

For every kind of file an importer reads (own format and Polygon), a symlink pointing
at a secret outside the problem directory makes the upload fail with an error naming
the file, leaves the store unchanged, and the secret's bytes appear nowhere in it.
Symlinks that stay inside the directory are allowed (docs/problem-format.md).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from problem_store.upload import upload
from tests.problem_store.store_helpers import snapshot

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "problem_formats"
SECRET = b"TOP-SECRET-0f3c9a\n"


@pytest.fixture
def problems(tmp_path):
    """Importers read the files, whatever the backend: the file store is enough here."""
    from problem_store.blobs.file import FileBlobStore
    from problem_store.problems import ProblemStore

    return ProblemStore(FileBlobStore(tmp_path / "store", fsync=False))


@pytest.fixture
def secret_dir(tmp_path) -> Path:
    d = tmp_path / "outside"
    d.mkdir()
    for name in ("secret", "01.in", "01.ans", "02.in", "02.ans", "01.py"):
        (d / name).write_bytes(SECRET)
    (d / "problem.yaml").write_bytes(b"kind: stdio\ntitle: |\n  " + SECRET)
    return d


def _copy(src: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "set" / src.name
    shutil.copytree(src, dest)
    return dest


def _link(path: Path, target: Path) -> None:
    if path.exists() or path.is_symlink():
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    path.symlink_to(target)


def _refused(problems, path: Path, culprit: Path) -> str:
    before = snapshot(problems.blobs)
    report = upload(path, problems)
    assert not report.ok and report.added == [] and report.updated == []
    msg = "\n".join(map(str, report.rejected))
    assert str(culprit) in msg and "outside the problem directory" in msg, msg
    after = snapshot(problems.blobs)
    assert after == before
    assert not any(SECRET.strip() in data for data in after.values())
    return msg


OWN_CASES = {
    # name: (fixture problem, file to replace by a symlink, target in the secret dir)
    "test input": ("sum-two", "tests/02.in", "secret"),
    "test answer": ("sum-two", "tests/02.ans", "secret"),
    "statement": ("sum-two", "statement.md", "secret"),
    "problem.yaml": ("sum-two", "problem.yaml", "problem.yaml"),
    "tests directory": ("sum-two", "tests", "."),
    "listed test input": ("near-equal", "tests/a.in", "secret"),
    "checker source": ("near-equal", "checker.cpp", "secret"),
    "checker header": ("near-equal", "testlib.h", "secret"),
    "function prompt": ("add-func", "prompt.py", "secret"),
    "function test": ("add-func", "tests/01.py", "secret"),
}


@pytest.mark.parametrize("case", sorted(OWN_CASES))
def test_own_format_symlink_out_is_refused(case, problems, tmp_path, secret_dir):
    problem, rel, target = OWN_CASES[case]
    d = _copy(FIXTURES / "own" / problem, tmp_path)
    _link(d / rel, secret_dir / target)
    culprit = d / rel if rel != "tests" else d / "tests"
    _refused(problems, d, culprit)


def test_shared_include_header_symlink_out_is_refused(problems, tmp_path, secret_dir):
    d = _copy(FIXTURES / "own" / "near-equal", tmp_path)
    include = d.parent / "include"
    include.mkdir()
    (d / "testlib.h").unlink()
    (include / "testlib.h").symlink_to(secret_dir / "secret")
    _refused(problems, d, include / "testlib.h")


POLYGON_CASES = {
    "problem.xml": ("problem.xml", "problem.yaml"),
    "test input": ("tests/02", "secret"),
    "test answer": ("tests/02.a", "secret"),
    "checker source": ("files/check.cpp", "secret"),
    "checker header": ("files/testlib.h", "secret"),
    "statement section": ("statement-sections/english/legend.tex", "secret"),
}


@pytest.mark.parametrize("case", sorted(POLYGON_CASES))
def test_polygon_symlink_out_is_refused(case, problems, tmp_path, secret_dir):
    rel, target = POLYGON_CASES[case]
    d = _copy(FIXTURES / "polygon" / "aplusb-poly", tmp_path)
    (d / rel).parent.mkdir(parents=True, exist_ok=True)
    _link(d / rel, secret_dir / target)
    _refused(problems, d, d / rel)


def test_polygon_path_pattern_leaving_the_package_is_refused(problems, tmp_path, secret_dir):
    d = _copy(FIXTURES / "polygon" / "aplusb-poly", tmp_path)
    xml = d / "problem.xml"
    rel = os.path.relpath(secret_dir, d)
    xml.write_text(xml.read_text().replace("<input-path-pattern>tests/%02d</input-path-pattern>",
                                           f"<input-path-pattern>{rel}/%02d.in</input-path-pattern>"))
    _refused(problems, d, secret_dir / "01.in")


def test_symlinks_inside_the_problem_dir_are_followed(problems, tmp_path):
    d = _copy(FIXTURES / "own" / "sum-two", tmp_path)
    (d / "shared").mkdir()
    (d / "tests" / "02.in").rename(d / "shared" / "two.in")
    (d / "tests" / "02.in").symlink_to("../shared/two.in")
    (d / "statement.md").rename(d / "shared" / "statement.md")
    (d / "statement.md").symlink_to(d / "shared" / "statement.md")  # absolute, still inside
    report = upload(d, problems)
    assert report.added == ["sum-two"], report.rejected
    p = problems.get("sum-two")
    two = next(t for t in p.tests if t.name == "02")
    assert problems.blobs.get(two.input) == (d / "shared" / "two.in").read_bytes()
    assert p.statement == (d / "shared" / "statement.md").read_text()


def test_a_fifo_is_refused_not_waited_on(problems, tmp_path):
    d = _copy(FIXTURES / "own" / "sum-two", tmp_path)
    (d / "tests" / "02.in").unlink()
    os.mkfifo(d / "tests" / "02.in")  # reading it would block forever
    report = upload(d, problems)
    assert not report.ok and "is not a regular file" in str(report.rejected[0])
