"""The Python fork server at the runner level (no backend): its life cycle, the compile
cache, the fallbacks, and each documented difference from a fresh interpreter
(docs/architecture.md, sandboxes/runner/PROTOCOL.md, sandboxes/THREAT_MODEL.md).

Needs root (the runner switches runs to a run uid), like the local backend.
"""

from __future__ import annotations

import base64
import os
import shutil
import signal
import tempfile
import threading
import time
from pathlib import Path

import pytest

from sandboxes.runner.core import RequestError, Runner, RunnerConfig

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the runner needs root to switch runs to a uid")

RUN_UID = 61977
# At module level, a script has no caller frame; a fork-server child has the zygote's.
PATH_PROBE = "import sys\nprint('fork' if sys._getframe().f_back is not None else 'exec')\n"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@pytest.fixture
def tmp_path():
    """Scratch roots the run uid can reach (pytest's own tmp dirs are root-only 0700)."""
    d = tempfile.mkdtemp(prefix="pyfork-test-", dir="/tmp")
    os.chmod(d, 0o755)
    yield Path(d)
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def runner(tmp_path):
    r = Runner(RunnerConfig(scratch_root=str(tmp_path / "scratch"), uid=RUN_UID, gid=RUN_UID,
                            python_fork_server=True))
    yield r
    if r.pyfork is not None:
        r.pyfork.stop()


def compile_py(r: Runner, code: str) -> dict:
    reply = r.compile({"language": "python", "code": code})
    assert reply["status"] == "OK", reply
    return reply["artifact"]


def run_py(r: Runner, art: dict, stdin: bytes = b"", **limits) -> dict:
    reply = r.run({"program": {"language": "python", "sha256": art["sha256"]},
                   "stdin": {"data_b64": _b64(stdin)}, "limits": limits})
    reply["stdout"] = base64.b64decode(reply.pop("stdout_b64"))
    reply["stderr"] = base64.b64decode(reply.pop("stderr_b64"))
    return reply


def once(r: Runner, code: str, stdin: bytes = b"", **limits) -> dict:
    return run_py(r, compile_py(r, code), stdin, **limits)


def test_runs_are_forks_and_the_knob_turns_them_off(tmp_path, runner):
    assert once(runner, PATH_PROBE)["stdout"] == b"fork\n"
    off = Runner(RunnerConfig(scratch_root=str(tmp_path / "off"), uid=RUN_UID, gid=RUN_UID,
                              python_fork_server=False))
    assert off.pyfork is None
    assert once(off, PATH_PROBE)["stdout"] == b"exec\n"


def test_no_run_uid_keeps_the_exec_path(tmp_path):
    """Without a run uid (Lambda) a child would share the zygote's uid: exec path."""
    r = Runner(RunnerConfig(scratch_root=str(tmp_path / "s"), python_fork_server=True))
    assert r.pyfork is None


def test_zygote_that_cannot_start_falls_back_to_exec(runner):
    runner.pyfork.python = "/nonexistent/python3"
    assert once(runner, PATH_PROBE)["stdout"] == b"exec\n"
    assert runner.pyfork is None  # for good: no start attempt per run


def test_compiled_once_per_source(runner):
    calls = []
    real = runner.pyfork.run

    def counting(**kw):
        calls.append(kw["op"])
        return real(**kw)

    runner.pyfork.run = counting
    art = compile_py(runner, "print(int(input()) * 2)\n")
    outs = [run_py(runner, art, b"%d\n" % i)["stdout"] for i in range(5)]
    assert outs == [b"%d\n" % (2 * i) for i in range(5)]
    assert calls == ["compile"] + ["run"] * 5
    # A runner that never compiled this source (another slot did) compiles it once.
    runner._pycode.clear()
    calls.clear()
    for i in range(3):
        assert run_py(runner, art, b"1\n")["stdout"] == b"2\n"
    assert calls == ["compile", "run", "run", "run"]


def test_a_code_object_from_another_slot_saves_the_compile_fork(tmp_path, runner):
    """The compile reply carries the code object; a runner sent it with the source runs
    the test as one fork (no compile fork of its own), and runs what that source says."""
    code = "import sys\nprint(sum(map(int, sys.stdin.read().split())), __name__)\n"
    reply = runner.compile({"language": "python", "code": code})
    assert reply["status"] == "OK" and reply["pycode_b64"]
    other = Runner(RunnerConfig(scratch_root=str(tmp_path / "other"), uid=RUN_UID + 1, gid=RUN_UID + 1,
                                python_fork_server=True))
    calls = []
    real = other.pyfork.run
    other.pyfork.run = lambda **kw: calls.append(kw["op"]) or real(**kw)
    try:
        program = {"language": "python", "sha256": reply["artifact"]["sha256"],
                   "data_b64": reply["artifact"]["data_b64"], "pycode_b64": reply["pycode_b64"]}
        first = other.run({"program": program, "stdin": {"data_b64": _b64(b"1 2 3\n")}, "limits": {}})
        assert base64.b64decode(first["stdout_b64"]) == b"6 __main__\n" and first["status"] == "OK"
        again = run_py(other, reply["artifact"], b"40 2\n")
        assert again["stdout"] == b"42 __main__\n"
        assert calls == ["run", "run"]
        with pytest.raises(RequestError, match="pycode_b64"):
            other.run({"program": {**program, "pycode_b64": 7}, "stdin": {"data_b64": ""}, "limits": {}})
    finally:
        other.pyfork.stop()


def test_artifact_is_the_source_as_on_the_exec_path(tmp_path, runner):
    code = "print('same artifact')\n"
    off = Runner(RunnerConfig(scratch_root=str(tmp_path / "off"), uid=RUN_UID, gid=RUN_UID))
    assert compile_py(runner, code) == compile_py(off, code)


def test_the_zygote_runs_under_the_runs_filter_and_children_keep_it(runner):
    # The filter is installed once, on the zygote (what a child's fork inherits), not by
    # each child: the zygote's own status shows it, and a run still cannot make a user
    # namespace or call bpf (EPERM), with no_new_privs set.
    probe = ("import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
             "print(libc.unshare(0x10000000), ctypes.get_errno(), libc.syscall(321, 0, None, 0), ctypes.get_errno())\n"
             "st = dict(l.split(':', 1) for l in open('/proc/self/status'))\n"
             "print(st['Seccomp'].strip(), st['NoNewPrivs'].strip())\n")
    first = once(runner, "print(1)\n")
    assert first["status"] == "OK"
    with open(f"/proc/{runner.pyfork.pid}/status") as f:
        status = dict(line.split(":", 1) for line in f)
    assert (status["Seccomp"].strip(), status["NoNewPrivs"].strip()) == ("2", "1"), status
    reply = once(runner, probe)
    assert reply["status"] == "OK", reply
    denied, mode = reply["stdout"].decode().splitlines()
    assert denied.split() == ["-1", str(__import__("errno").EPERM)] * 2, reply
    assert mode.split() == ["2", "1"], reply


def test_a_killed_zygote_is_ie_then_restarted(runner):
    art = compile_py(runner, "import time\nprint('started', flush=True)\ntime.sleep(30)\n")
    zygote = {}

    def kill_when_running():
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            pid = runner.pyfork.pid if runner.pyfork else None
            if pid and _has_child_of_uid(pid, RUN_UID):
                zygote["pid"] = pid
                os.kill(pid, signal.SIGKILL)
                return
            time.sleep(0.01)

    t = threading.Thread(target=kill_when_running)
    t.start()
    reply = run_py(runner, art, wall_time_s=25, cpu_time_s=25)
    t.join()
    assert "pid" in zygote
    assert reply["status"] == "IE", reply
    assert "fork server" in reply["message"]
    starts = runner.pyfork.starts
    assert once(runner, "print(6 * 7)\n")["stdout"] == b"42\n"
    assert runner.pyfork.starts == starts + 1 and runner.pyfork.pid != zygote["pid"]


def test_a_slow_new_generation_is_not_the_runs_time(runner, monkeypatch):
    """The zygote replaced after MAX_RUNS_PER_ZYGOTE forks starts inside the next run's call.
    A start slower than the run's idleness limit (a loaded machine) costs that run nothing:
    its clocks start once the new zygote is up (they did not: a right answer became TLE)."""
    art = compile_py(runner, "a, b = map(int, input().split())\nprint(a + b)\n")
    old = runner.pyfork.pid
    runner.pyfork.max_runs = runner.pyfork.runs  # the next run begins a new generation
    slow = 1.3  # past the idleness limit of a 1 s run (watch.run_idle_limit)
    real_start = runner.pyfork.start

    def slow_start():
        time.sleep(slow)
        real_start()

    monkeypatch.setattr(runner.pyfork, "start", slow_start)
    reply = run_py(runner, art, b"2 3\n", cpu_time_s=1, wall_time_s=3)
    assert runner.pyfork.pid != old  # (the run did start a new zygote)
    assert reply["status"] == "OK" and reply["stdout"] == b"5\n", reply
    assert reply["wall_time_s"] < slow, reply


def _has_child_of_uid(ppid: int, uid: int) -> bool:
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/status") as f:
                    st = dict(line.split(":", 1) for line in f if ":" in line)
            except OSError:
                continue
            if int(st["PPid"]) == ppid and int(st["Uid"].split()[0]) == uid:
                return True
    return False


# -- what differs from a fresh interpreter (each one documented) ------------------------------

def test_hash_seed_is_fixed_per_zygote_random_is_not(runner):
    art = compile_py(runner, "import random\nprint(hash('oubliette'), random.getrandbits(64))\n")
    outs = [run_py(runner, art)["stdout"].split() for _ in range(3)]
    assert len({h for h, _ in outs}) == 1, "str hashes: one seed per zygote"
    assert len({r for _, r in outs}) == 3, "random: seeded afresh in every child"


def test_main_runs_one_frame_below_the_zygote(runner):
    out = once(runner, "import sys, traceback\nprint(len(traceback.extract_stack()))\n"
                       "print(sys._getframe(1).f_code.co_filename.endswith('zygote.py'))\n")["stdout"]
    assert out == b"2\nTrue\n"


def test_each_child_starts_from_the_zygote_not_the_last_child(runner):
    """A run's changes to builtins, sys.modules, sys state and os.environ die with it."""
    dirty = compile_py(runner, "import builtins, sys, os\nbuiltins.print = None\nbuiltins.LEAK = 1\n"
                               "sys.modules['planted'] = sys\nsys.setrecursionlimit(50)\n"
                               "os.environ['LEAK'] = '1'\nsys.path.append('/planted')\n")
    probe = compile_py(runner, "import builtins, sys, os\nprint(hasattr(builtins, 'LEAK'), 'planted' in sys.modules,"
                               " sys.getrecursionlimit(), 'LEAK' in os.environ, '/planted' in sys.path)\n")
    for _ in range(2):
        assert run_py(runner, dirty)["status"] == "OK"
        assert run_py(runner, probe)["stdout"] == b"False False 1000 False False\n"



def test_recursion_limit_is_reached_two_calls_earlier(tmp_path, runner):
    """The submission's module frame sits below the zygote's frame and exec()'s entry into
    the eval loop: the same limit, reached two calls earlier (threads are unaffected)."""
    code = ("import sys\nsys.setrecursionlimit(200)\nn = 0\ndef r():\n    global n\n    n += 1\n    r()\n"
            "try:\n    r()\nexcept RecursionError:\n    print(n)\n")
    off = Runner(RunnerConfig(scratch_root=str(tmp_path / "off"), uid=RUN_UID, gid=RUN_UID))
    forked, execd = int(once(runner, code)["stdout"]), int(once(off, code)["stdout"])
    assert forked == execd - 2


def test_what_only_a_fork_shows(runner):
    """The zygote's command line, its frozen objects, the extension modules it loaded
    (mapped, not imported); the teardown is the interpreter's own, so objects other
    modules keep are finalized too, as python3 does when it clears every module."""
    out = once(runner, "import gc, sys\nprint(open('/proc/self/cmdline', 'rb').read().split(b'\\0')[3:4])\n"
                       "print(gc.get_freeze_count() > 0)\n"
                       "print('_ctypes' in open('/proc/self/maps').read(), '_ctypes' in sys.modules)\n"
                       "class A:\n    def __del__(self):\n        sys.__stdout__.write('finalized\\n')\n"
                       "ns = {'w': sys.__stdout__.write}\n"
                       "exec('class B:\\n    def __del__(self):\\n        w(\\'other\\\\n\\')\\n', ns)\n"
                       "import json\njson.keep = ns['B']()\nkept_here = A()\n")["stdout"]
    lines = out.decode().splitlines()
    assert lines[0].endswith("zygote.py']") and lines[1] == "True" and lines[2] == "True False"
    assert lines[3:] == ["finalized", "other"], "__main__'s objects, then json.keep, are finalized"
