"""Limits on the fork path: the same verdicts as the exec path (CPU/wall TLE, MLE, OLE,
process/thread caps, file size), on every backend in SANDBOX_BACKENDS.

For ``local`` the exec path is measured side by side (a second local backend with the
fork server off), so each verdict is checked against what the exec path says rather than
against a value written here; every backend also gets the verdict the limit implies.
"""

from __future__ import annotations

import pytest

from sandboxes.backends.registry import create_backend
from sandboxes.types import Batch, Blob, RunSpec, Source, Status
from tests.sandboxes.backend_fixture import Handle, _LoopThread, quick_limits
from tests.security.helpers import assert_healthy, assert_no_run_processes_left

CASES = {
    "cpu_loop": ("while True:\n    pass\n", dict(cpu_time_s=0.5, wall_time_s=5), {Status.TLE}),
    "cpu_threads": ("import threading\ndef spin():\n    while True:\n        pass\n"
                    "for _ in range(3):\n    threading.Thread(target=spin, daemon=True).start()\nspin()\n",
                    dict(cpu_time_s=0.5, wall_time_s=5), {Status.TLE}),
    "wall_sleep": ("import time\ntime.sleep(30)\n", dict(cpu_time_s=2, wall_time_s=0.5), {Status.TLE}),
    "wall_stdin_block": ("import os\nr, w = os.pipe()\nos.read(r, 1)\n", dict(cpu_time_s=2, wall_time_s=0.5), {Status.TLE}),
    "mle_list": ("x = []\nwhile True:\n    x.append(bytearray(1 << 20))\n", dict(memory_mb=64, wall_time_s=10), {Status.MLE}),
    "mle_one_block": ("x = bytearray(200 << 20)\nprint(len(x))\n", dict(memory_mb=64, wall_time_s=10), {Status.MLE}),
    "ole_print": ("while True:\n    print('x' * 1000)\n", dict(output_bytes=1 << 16, wall_time_s=5), {Status.OLE}),
    "ole_buffer": ("import sys\nsys.stdout.buffer.write(b'y' * (1 << 20))\n", dict(output_bytes=1 << 16), {Status.OLE}),
    "fork_bomb": ("import os, time\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        time.sleep(0.01)\n",
                  dict(max_processes=8, cpu_time_s=1, wall_time_s=1.5), {Status.TLE, Status.RE}),
    "thread_cap": ("import threading, time\nn = 0\ntry:\n    while n < 500:\n"
                   "        threading.Thread(target=time.sleep, args=(5,), daemon=True).start()\n        n += 1\n"
                   "except RuntimeError:\n    pass\nprint(n < 16)\nimport os\nos._exit(0)\n",
                   dict(max_processes=16, wall_time_s=5), {Status.OK}),
    "file_size": ("with open('big', 'wb') as f:\n    f.write(b'z' * (4 << 20))\n", dict(file_size_bytes=1 << 20), {Status.RE}),
    "recursion_limit": ("import sys\nsys.setrecursionlimit(10 ** 7)\ndef r(n):\n    return r(n + 1)\nr(0)\n",
                        dict(memory_mb=128, wall_time_s=10, cpu_time_s=5), {Status.MLE, Status.RE, Status.TLE}),
    "ok_after_work": ("s = 0\nfor i in range(10 ** 6):\n    s += i\nprint(s)\n", dict(cpu_time_s=5, wall_time_s=10), {Status.OK}),
}


def _run(handle, code: str, limits: dict):
    res = handle.run(Batch(program=Source(language="python", code=code),
                           runs=[RunSpec(id="t", stdin=Blob(data=b""), limits=quick_limits(**limits))]))
    assert res.compile is not None and res.compile.status == Status.OK, res.compile
    return res.runs[0]


@pytest.fixture(scope="module")
def exec_local(request):
    """A local backend with the fork server off: the exec path, for side-by-side verdicts."""
    loop = _LoopThread()
    be = create_backend("local", python_fork_server=False, capacity=1, selftest=False)
    loop.call(be.start(), 300)
    yield Handle("local-exec", be, None, loop)
    loop.call(be.close(), 120)
    loop.stop()


@pytest.mark.parametrize("case", sorted(CASES))
def test_verdict_as_on_the_exec_path(backend, case, request):
    code, limits, allowed = CASES[case]
    got = _run(backend, code, limits)
    assert got.status in allowed, got
    if got.status in (Status.TLE,) and "cpu_time_s" in limits and case.startswith("cpu"):
        assert got.cpu_time_s >= limits["cpu_time_s"], got
    if backend.name == "local":
        ref = _run(request.getfixturevalue("exec_local"), code, limits)
        assert got.status == ref.status, (got, ref)
        if got.status not in (Status.OLE, Status.TLE):  # there the runner's kill races the exit
            assert got.stdout == ref.stdout and (got.exit_code, got.signal) == (ref.exit_code, ref.signal), \
                (got, ref)
    assert_no_run_processes_left(backend)


def test_memory_counts_the_child_only(backend):
    """A fork's peak memory is its own pages (the interpreter's stay the zygote's), so it is
    never above what an exec'd interpreter reports, and an allocation shows in full."""
    small = _run(backend, "print(1)\n", {})
    big = _run(backend, "x = bytearray(100 << 20)\nfor i in range(0, len(x), 4096):\n    x[i] = 1\nprint(len(x))\n",
               dict(memory_mb=256))
    assert small.status == big.status == Status.OK
    assert big.memory_kb - small.memory_kb >= 95 * 1024, (small.memory_kb, big.memory_kb)
    assert_healthy(backend)


def test_pages_shared_with_the_zygote_are_not_charged(backend, request):
    """local: the same trivial program is charged about what an exec is charged. A fork
    ends through the interpreter's full finalization, which writes to (copies) most pages
    it shares with the zygote, so it no longer peaks lower than an exec; it must not peak
    much higher either (1 MiB of slack for the copies)."""
    if backend.name != "local" or not getattr(backend.backend, "accounting", "").startswith("cgroup"):
        pytest.skip("side by side with the exec path on local with cgroups")
    code = "print(sum(range(10)))\n"
    forked, execd = _run(backend, code, {}), _run(request.getfixturevalue("exec_local"), code, {})
    assert forked.stdout == execd.stdout
    assert 0 < forked.memory_kb < execd.memory_kb + 1024, (forked.memory_kb, execd.memory_kb)
