"""Waiting for a core is not idleness (watch.IdleWatch, cpu_meter.active_s).

A clean-clone CI run's RL job judged a right answer TLE ("idleness limit") while its trainer
and generator kept both cores busy; a stress run reproduced it (2 in about 1,000 right
answers under load). Here the starving is made certain: a busy process at the highest
priority shares the run's core for longer than the run's idleness limit, and the run lowers
its own (any program may). Each run is a session of its own, so where the kernel groups
tasks by session (autogroup) both priorities are the groups' ones too. The run is runnable
all that time, gets almost no CPU, and must still finish OK once the competitor is gone;
the old rule (CPU time alone) called it idle at 1 s.

Both ways a Python test is started: the exec path (spawn shim, in-process runner) and the
fork server of a real local-backend slot (its cgroup, its pinned core).
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from contextlib import contextmanager

import pytest

from sandboxes.runner.core import Runner, RunnerConfig
from sandboxes.types import Batch, Blob, RunLimits, RunSpec, Source, Status

pytestmark = [pytest.mark.skipif(not os.path.exists("/proc/self/schedstat"), reason="no schedstat on this kernel"),
              pytest.mark.skipif(os.geteuid() != 0, reason="the competitor runs at nice -20 (root)")]

HOG_S = 1.8  # longer than the idleness limit of a 1 s run (watch.run_idle_limit: 1 s)
# SCHED_IDLE (and its session's group at nice 19 where there are autogroups) against nice
# -20: well under 0.1 % of the shared core. Then about 60 ms of CPU: it cannot finish before the competitor.
STARVED = ("import os\nos.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))\n"
           "try:\n    open('/proc/self/autogroup', 'w').write('19')\nexcept OSError:\n    pass\n"
           "a, b = map(int, input().split())\nsum(range(3_000_000))\nprint(a + b)\n")
LIMITS = RunLimits(cpu_time_s=1.0, wall_time_s=8.0)


@contextmanager
def busy_core(cpu: int):
    """A process spinning on ``cpu`` for HOG_S seconds at nice -20 (its session's group too),
    already spinning on entry."""
    hog = subprocess.Popen(
        [sys.executable, "-c",
         f"import os, time\nos.sched_setaffinity(0, {{{cpu}}})\nos.setpriority(os.PRIO_PROCESS, 0, -20)\n"
         "try:\n    open('/proc/self/autogroup', 'w').write('-20')\nexcept OSError:\n    pass\n"
         f"end = time.monotonic() + {HOG_S}\nprint('spinning', flush=True)\n"
         "while time.monotonic() < end:\n    pass\n"],
        stdout=subprocess.PIPE, start_new_session=True)
    try:
        assert hog.stdout.readline() == b"spinning\n"
        yield
    finally:
        hog.kill()
        hog.wait()


def test_exec_path(tmp_path):
    """The in-process runner without a run uid: the spawn shim's exec of python3."""
    cpu = sorted(os.sched_getaffinity(0))[0]
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})  # the run inherits our core
    try:
        r = Runner(RunnerConfig(scratch_root=str(tmp_path / "s"), python_fork_server=False))
        art = r.compile({"language": "python", "code": STARVED})  # before the competitor starts
        assert art["status"] == "OK", art
        with busy_core(cpu):
            reply = r.run({"program": {"language": "python", "sha256": art["artifact"]["sha256"]},
                           "stdin": {"data_b64": base64.b64encode(b"2 3\n").decode()},
                           "limits": LIMITS.model_dump()})
    finally:
        os.sched_setaffinity(0, before)
    assert reply["status"] == "OK", reply
    assert base64.b64decode(reply["stdout_b64"]) == b"5\n"
    assert reply["wall_time_s"] > 1.0  # (it did wait past its idleness limit)


async def test_fork_server_of_a_pinned_slot():
    """A local-backend slot as the service uses it: the fork server, the run's cgroup, the
    slot's core."""
    from sandboxes.backends.cpu_pin import slot_cpus
    from sandboxes.backends.local import LocalBackend

    cpu = slot_cpus(1)[0]
    if cpu is None:
        pytest.skip("the slot is not pinned here")
    async with LocalBackend(capacity=1, selftest=False) as be:
        comp = await be.compile(Source(language="python", code=STARVED))  # before the competitor
        assert comp.status == Status.OK and comp.artifact is not None, comp
        with busy_core(cpu):
            res = await be.run_batch(Batch(program=comp.artifact, runs=[
                RunSpec(id="t", stdin=Blob(data=b"2 3\n"), limits=LIMITS)]))
    run = res.runs[0]
    assert run.status == Status.OK, (run.status, run.message)
    assert run.stdout == b"5\n"
    assert run.wall_time_s > 1.0  # (it did wait past its idleness limit)
