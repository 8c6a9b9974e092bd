"""Custom checkers compile once, statically, with the package's own testlib.h, and judge."""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

import pytest

from problem_store.checker_build import CheckerBuildError, compile_checker

PKG = Path(__file__).resolve().parent.parent / "fixtures" / "problem_formats" / "polygon" / "aplusb-poly"


def _has_interpreter(elf: bytes) -> bool:
    """True if the ELF asks for a dynamic loader (PT_INTERP): i.e. it is not static."""
    assert elf[:4] == b"\x7fELF" and elf[4] == 2  # 64-bit
    phoff = struct.unpack_from("<Q", elf, 0x20)[0]
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    return any(struct.unpack_from("<I", elf, phoff + i * phentsize)[0] == 3 for i in range(phnum))


@pytest.fixture(scope="module")
def checker(tmp_path_factory) -> Path:
    binary = compile_checker((PKG / "files" / "check.cpp").read_bytes(),
                             headers={"testlib.h": (PKG / "files" / "testlib.h").read_bytes()})
    path = tmp_path_factory.mktemp("chk") / "checker"
    path.write_bytes(binary)
    path.chmod(0o755)
    return path


def _judge(checker: Path, tmp: Path, inp: bytes, out: bytes, ans: bytes) -> int:
    for name, data in (("in", inp), ("out", out), ("ans", ans)):
        (tmp / name).write_bytes(data)
    res = subprocess.run([str(checker), str(tmp / "in"), str(tmp / "out"), str(tmp / "ans")],
                         capture_output=True, timeout=10)
    return res.returncode


def test_static_binary_with_testlib_verdicts(checker, tmp_path):
    assert not _has_interpreter(checker.read_bytes())
    assert _judge(checker, tmp_path, b"1 2\n", b"3\n", b"3\n") == 0  # OK
    assert _judge(checker, tmp_path, b"1 2\n", b"4\n", b"3\n") == 1  # WA
    assert _judge(checker, tmp_path, b"1 2\n", b"three\n", b"3\n") == 2  # PE
    assert _judge(checker, tmp_path, b"1 2\n", b"3 3\n", b"3\n") == 2  # PE: extra output
    assert _judge(checker, tmp_path, b"1 2\n", b"3\n", b"5\n") == 3  # FAIL: bad jury answer


def test_build_is_deterministic_and_cached():
    src = (PKG / "files" / "check.cpp").read_bytes()
    headers = {"testlib.h": (PKG / "files" / "testlib.h").read_bytes()}
    a = compile_checker(src, headers=headers, use_cache=False)
    b = compile_checker(src, headers=headers, use_cache=False)
    assert a == b  # so a re-upload of an exported problem is unchanged


def test_compile_errors_are_reported():
    with pytest.raises(CheckerBuildError) as e:
        compile_checker(b'#include "testlib.h"\nint main() {}\n', source_name="pkg/check.cpp")
    assert "pkg/check.cpp" in str(e.value) and "testlib.h" in str(e.value)
    with pytest.raises(CheckerBuildError):
        compile_checker(b"int main(){}", headers={"../evil.h": b""})
    with pytest.raises(CheckerBuildError):
        compile_checker(b"int main(){}", language="rust")


def test_c_checker():
    binary = compile_checker(b"#include <math.h>\nint main(void){return (int)sqrt(0.0);}\n", language="c",
                             source_name="check.c")
    assert not _has_interpreter(binary)
