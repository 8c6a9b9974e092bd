"""Polygon ``std::`` checkers: the shipped source is the truth; a built-in stands in only where
it has testlib's exact verdicts and the package's testlib.h is a version it was checked
against. Every std:: name uploads; without a source and without an exact built-in, the error
says what to add."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from problem_store.blobs.file import FileBlobStore
from problem_store.checker_build import compile_checker
from problem_store.importers.polygon import STD_BUILTINS, STD_NAMES, load_package
from problem_store.manifest import BuiltinChecker
from problem_store.problems import ProblemStore
from problem_store.upload import upload
from sandboxes.types import RunResult, Status
from tests.verifier import testlib_reference
from tests.verifier.output_variants import variants
from verifier.checkers.builtin import check_builtin
from verifier.checkers.custom import outcome_of

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "problem_formats"


def _package(tmp_path: Path, checker_xml: str) -> Path:
    d = tmp_path / "pkg" / "aplusb-poly"
    shutil.copytree(FIXTURES / "polygon" / "aplusb-poly", d)
    xml = d / "problem.xml"
    text = xml.read_text()
    start, end = text.index("<checker"), text.index("</checker>") + len("</checker>")
    xml.write_text(text[:start] + checker_xml + text[end:])
    return d


def _std(name: str, source: bool) -> str:
    inner = '<source path="files/check.cpp" type="cpp.g++17"/>' if source else ""
    return f'<checker name="std::{name}.cpp" type="testlib">{inner}</checker>'


@pytest.fixture
def file_store(tmp_path) -> ProblemStore:
    return ProblemStore(FileBlobStore(tmp_path / "store"))


@pytest.mark.parametrize("name", sorted(STD_NAMES))
def test_every_std_name_uploads_with_its_source(name, tmp_path, file_store):
    # The fixture's testlib.h is not a verified testlib version: the source is compiled.
    report = upload(_package(tmp_path, _std(name, source=True)), file_store)
    assert report.ok, report.rejected
    checker = file_store.get("aplusb-poly").checker
    assert checker.type == "custom" and checker.binary


@pytest.mark.parametrize("name", sorted(STD_BUILTINS))
def test_exact_builtin_stands_in_when_no_source_ships(name, tmp_path):
    draft = load_package(_package(tmp_path, _std(name, source=False)))
    assert draft.fields["checker"] == {"type": "builtin", "name": name} and draft.checker is None


@pytest.mark.parametrize("name", sorted(STD_NAMES - STD_BUILTINS) + ["bogus"])
def test_std_name_without_exact_builtin_or_source_is_a_clear_error(name, tmp_path, file_store):
    d = _package(tmp_path, _std(name, source=False))
    report = upload(d, file_store)
    assert not report.ok
    message = str(report.rejected[0])
    assert f"std::{name}.cpp" in message and "source" in message and "problem.xml:" in message
    assert ("unknown" in message) == (name == "bogus")


def test_a_stray_check_cpp_is_not_taken_for_a_std_checker(tmp_path):
    # files/check.cpp exists (the fixture's own checker), but <checker> names std::ncmp without
    # a <source>: that file may be anything, so the built-in ncmp judges.
    draft = load_package(_package(tmp_path, _std("ncmp", source=False)))
    assert draft.fields["checker"]["name"] == "ncmp"


# -- the same package with the real testlib: stand-in vs its compiled checker --------------

@pytest.fixture(scope="module")
def reference_dir() -> Path:
    if shutil.which("g++") is None:
        pytest.skip("g++ is needed")
    try:
        return testlib_reference.ensure()
    except testlib_reference.ReferenceUnavailable as e:
        pytest.skip(f"real testlib.h not available: {e}")


def _real_package(tmp_path: Path, ref: Path, name: str, version: str | None = None) -> Path:
    d = _package(tmp_path, _std(name, source=True))
    header = (ref / "testlib.h").read_bytes()
    if version is not None:
        header = re.sub(rb'#define VERSION "[^"]*"', f'#define VERSION "{version}"'.encode(), header, count=1)
    (d / "files" / "testlib.h").write_bytes(header)
    shutil.copy(ref / f"{name}.cpp", d / "files" / "check.cpp")
    return d


@pytest.mark.parametrize("name", ["ncmp", "wcmp", "yesno"])
def test_package_judged_alike_by_stand_in_and_by_its_compiled_source(name, tmp_path, reference_dir):
    stand_in = load_package(_real_package(tmp_path / "a", reference_dir, name))
    assert stand_in.fields["checker"] == {"type": "builtin", "name": name}
    # The same package with a testlib.h of an unverified version: its own source is compiled.
    compiled = load_package(_real_package(tmp_path / "b", reference_dir, name, version="0.9.1-unverified"))
    assert compiled.fields["checker"]["type"] == "custom" and compiled.checker is not None
    spec = compiled.checker
    binary = tmp_path / "checker"
    binary.write_bytes(compile_checker(spec.source, language=spec.language, headers=spec.headers))
    binary.chmod(0o755)

    answers = [b"3\n", b"10\n", b"-5 7\n", b"YES\n", b"no\n"]
    checked = 0
    for i, answer in enumerate(answers):
        for label, output in variants(answer, seed=i, random_count=4)[::2]:
            (tmp_path / "out.txt").write_bytes(output)
            (tmp_path / "ans.txt").write_bytes(answer)
            (tmp_path / "in.txt").write_bytes(b"")
            res = subprocess.run([str(binary), "in.txt", "out.txt", "ans.txt"], cwd=tmp_path,
                                 capture_output=True, timeout=30, check=False)
            run = RunResult(id="x", status=Status.OK if res.returncode == 0 else Status.RE,
                            exit_code=res.returncode, stderr=res.stderr)
            want = outcome_of(run).verdict
            got = check_builtin(BuiltinChecker(name=name), output, answer).verdict
            assert got == want, f"{name}: answer {answer!r}, {label} {output!r}: compiled {want}, built-in {got}"
            checked += 1
    assert checked > 100
