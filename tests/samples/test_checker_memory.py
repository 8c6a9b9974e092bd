"""The sample set's custom checkers read the contestant's output as they go (as testlib's
streams do), so a huge output is a wrong or malformed answer, never a checker that runs
out of memory (IE, which an RL client drops instead of scoring 0: a hostile review printed
10 million tokens on seat-shuffle and got IE)."""

from __future__ import annotations

import resource
import shutil
import subprocess

import pytest

from samples import checkers, genlib, layout
from samples.runbare import compile_cpp
from tests.samples.test_generators import load_gen

CUSTOM = sorted(p.parent.name for p in layout.STDIO.glob("*/checker.cpp"))
FLOOD = b"1 " * 10_000_000  # 20 MB: inside the service's size guard for a 1.3 MB answer


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (256 << 20, 256 << 20))


@pytest.mark.parametrize("pid", CUSTOM)
def test_huge_output_is_judged_in_flat_memory(pid, tmp_path):
    if shutil.which("g++") is None:
        pytest.skip("g++ not installed")
    binary = tmp_path / "checker"
    ok, err = compile_cpp(layout.STDIO / pid / "checker.cpp", binary, (layout.STDIO_INCLUDE,))
    assert ok, err
    gen = load_gen(layout.STDIO / pid)
    genlib.write_tests(tmp_path / "tests", pid, gen.cases, gen.solve)
    inp, ans = tmp_path / "tests" / "01.in", tmp_path / "tests" / "01.ans"
    for out in (FLOOD, ans.read_bytes() + FLOOD):  # garbage, and the right answer then garbage
        path = tmp_path / "out"
        path.write_bytes(out)
        proc = subprocess.run([str(binary), str(inp), str(path), str(ans)], capture_output=True,
                              timeout=120, preexec_fn=_limit_memory)
        verdict = checkers.CUSTOM_EXIT.get(proc.returncode, f"crash {proc.returncode}")
        assert verdict in ("WA", "PE"), (pid, verdict, proc.stderr[-300:])
    # and the right answer alone is still accepted
    path.write_bytes(ans.read_bytes())
    proc = subprocess.run([str(binary), str(inp), str(path), str(ans)], capture_output=True, timeout=60)
    assert proc.returncode == 0, (pid, proc.stderr[-300:])
