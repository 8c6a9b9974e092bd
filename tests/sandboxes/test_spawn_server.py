"""The spawn server (spawn_shim --serve) as the runner uses it, without a backend.

Runs as the caller (no run uid) in a temp scratch root; the oracles are the program's
own output and exit status and the server's process state in /proc.
"""

from __future__ import annotations

import base64
import os
import signal

import pytest

from sandboxes.runner.core import Runner, RunnerConfig

_PY = "import os, sys\nprint(sys.argv[1:], os.getsid(0) == os.getpid(), sum(1 for _ in os.listdir('/proc/self/fd')))\n"


@pytest.fixture
def runner(tmp_path):
    r = Runner(RunnerConfig(scratch_root=str(tmp_path), spawn="server"))
    if r.server is None:
        pytest.skip("no C compiler: no spawn server")
    yield r
    r.close()


def _run(r: Runner, code: str, args=(), stdin=b"", **limits) -> dict:
    art = r.compile({"language": "python", "code": code, "limits": {}})["artifact"]
    return r.run({"program": {"language": art["language"], "sha256": art["sha256"]}, "args": list(args),
                  "stdin": {"data_b64": base64.b64encode(stdin).decode()}, "limits": limits})


def test_runs_get_their_own_session_and_only_the_standard_fds(runner):
    rep = _run(runner, _PY, args=["a b", "c"])
    assert rep["status"] == "OK", rep
    # 0, 1, 2 plus the fd listdir itself opens: the control socket and report pipe are gone.
    assert base64.b64decode(rep["stdout_b64"]) == b"['a b', 'c'] True 4\n"


def test_a_killed_server_is_replaced_and_the_next_run_is_judged(runner):
    assert _run(runner, "print(1)\n")["status"] == "OK"
    old = runner.server.pid
    os.kill(old, signal.SIGKILL)
    os.waitpid(old, 0)
    rep = _run(runner, "print(2)\n")
    assert rep["status"] == "OK" and base64.b64decode(rep["stdout_b64"]) == b"2\n", rep
    assert runner.server.pid != old


def test_limits_still_apply_through_the_server(runner):
    rep = _run(runner, "while True: pass\n", cpu_time_s=0.3, wall_time_s=2.0)
    assert rep["status"] == "TLE", rep
    rep = _run(runner, "import sys\nsys.exit(3)\n")
    assert rep["status"] == "RE" and rep["exit_code"] == 3, rep


def test_an_argument_with_a_nul_byte_is_an_internal_error_not_a_verdict(runner):
    rep = _run(runner, "print(1)\n", args=["a\0b"])
    assert rep["status"] == "IE", rep
