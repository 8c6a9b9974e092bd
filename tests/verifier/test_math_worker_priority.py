"""The sympy workers' CPU priority holds for every worker, replacements included, and is in
place before the worker imports sympy: each worker leads its own session (with autogroup the
scheduler weighs sessions before nice values), whose autogroup nice the pool lowers once an
answer has run demote_after_s.
Checked from /proc and the scheduler calls, not from the workers' own report alone."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from verifier.math.pool import PoolTimeout, WorkerFailed, WorkerPool
from verifier.math.priority import autogroup_nice

REPO = str(Path(__file__).resolve().parents[2])
# evaluation never ends within any budget used here (same request as test_math_timeout)
HANGING = {"gold": ["num", 1, 0], "pred": ["fact", ["num", 10 ** 10, 0]]}
AUTOGROUP = autogroup_nice() is not None  # the host schedules sessions as groups


def _autogroup_name(pid) -> str | None:
    """'/autogroup-N' of the task's session; None where the kernel prints none (no autogroup,
    or the task sits in a cpu cgroup other than the root, when autogroups do not apply)."""
    try:
        with open(f"/proc/{pid}/autogroup") as f:
            words = f.read().split()
    except OSError:
        return None
    return words[0] if words else None


def _seen_by_kernel(pid: int) -> dict:
    out = {"nice": os.getpriority(os.PRIO_PROCESS, pid),
           "sched_idle": os.sched_getscheduler(pid) == os.SCHED_IDLE,
           "session": os.getsid(pid)}
    out["autogroup"] = _autogroup_name(pid)
    with open(f"/proc/{pid}/status") as f:  # every thread, not only the main one
        out["threads"] = int(next(l for l in f if l.startswith("Threads:")).split()[1])
    return out


@pytest.mark.parametrize("nice, idle", [(10, False), (10, True)])
def test_every_worker_and_every_replacement_is_lowered(nice, idle):
    pool = WorkerPool(size=1, nice=nice, idle=idle)
    try:
        pids = set()
        for _ in range(3):  # the first worker, then two replacements after timeouts
            pool.warm_up()
            (w,) = pool._workers
            k = _seen_by_kernel(w.proc.pid)
            assert k["nice"] == nice and k["sched_idle"] == idle
            assert k["session"] == w.proc.pid != os.getsid(0)  # its own session
            mine = _autogroup_name("self")
            if mine is not None:  # not the service's autogroup
                assert k["autogroup"] is not None and k["autogroup"] != mine
            if AUTOGROUP:  # the session starts at the normal weight (lowered per request)
                assert autogroup_nice(w.proc.pid) == 0
            for tid in os.listdir(f"/proc/{w.proc.pid}/task"):  # setpriority is per thread
                assert os.getpriority(os.PRIO_PROCESS, int(tid)) == nice
            assert w.priority["nice"] == nice and w.priority["own_session"]
            pids.add(w.proc.pid)
            with pytest.raises(PoolTimeout):
                pool.call(HANGING, 0.3)
        assert len(pids) == 3 and pool.kills == 3 and pool.started == 4
        assert pool.call({"gold": ["num", 2, 0], "pred": ["num", 2, 0]}, 60)["equal"] is True
    finally:
        pool.shutdown()
    assert os.sched_getscheduler(0) != os.SCHED_IDLE  # the caller itself is untouched
    assert os.getpriority(os.PRIO_PROCESS, 0) == 0


def test_priority_is_set_before_sympy_is_imported():
    """The greeting comes after the imports; the priority it reports was read before them."""
    code = ("import sys, os; sys.argv[1:] = ['--nice', '7'];"
            "import builtins; real = builtins.__import__\n"
            "def spy(name, *a, **k):\n"
            "    if name.startswith('sympy') and 'seen' not in os.environ:\n"
            "        os.environ['seen'] = str(os.getpriority(os.PRIO_PROCESS, 0))\n"
            "        print('NICE_AT_SYMPY_IMPORT', os.environ['seen'], file=sys.stderr)\n"
            "    return real(name, *a, **k)\n"
            "builtins.__import__ = spy\n"
            "from verifier.math.worker import main; main()")
    p = subprocess.run([sys.executable, "-c", code], input="", capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=REPO), timeout=120)
    hello = json.loads(p.stdout.splitlines()[0])
    assert hello["ready"] and hello["priority"]["nice"] == 7
    assert "NICE_AT_SYMPY_IMPORT 7" in p.stderr


def test_a_worker_nobody_waits_on_stops_at_its_cpu_budget():
    """A worker left computing (its parent gone, so nobody kills it at the wall-clock budget)
    is stopped by its own CPU-time limit of budget + 2 s instead of running on in its session."""
    proc = subprocess.Popen([sys.executable, "-m", "verifier.math.worker", "--nice", "10"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            env=dict(os.environ, PYTHONPATH=REPO), start_new_session=True)
    try:
        assert json.loads(proc.stdout.readline())["ready"] is True
        proc.stdin.write((json.dumps(dict(HANGING, cpu_budget_s=1)) + "\n").encode())
        proc.stdin.flush()
        assert proc.wait(timeout=120) == -signal.SIGXCPU
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_normal_priority_keeps_the_worker_in_the_callers_session():
    pool = WorkerPool(size=1)
    try:
        pool.warm_up()
        (w,) = pool._workers
        assert os.getsid(w.proc.pid) == os.getsid(0)
        assert os.getpriority(os.PRIO_PROCESS, w.proc.pid) == os.getpriority(os.PRIO_PROCESS, 0)
    finally:
        pool.shutdown()


@pytest.mark.skipif(not AUTOGROUP, reason="the host schedules no autogroups")
def test_session_weight_is_normal_for_an_ordinary_answer_and_low_for_a_slow_one():
    """A request starts at the normal session weight (ordinary answers keep their latency
    under other load); one still running after demote_after_s drops to the low weight
    before its budget ends, and the next request starts at the normal weight again."""
    import threading

    pool = WorkerPool(size=1, nice=10, demote_after_s=0.2)
    try:
        pool.warm_up()
        (w,) = pool._workers
        assert pool.call({"gold": ["num", 2, 0], "pred": ["num", 2, 0]}, 60)["equal"] is True
        assert autogroup_nice(w.proc.pid) == 0  # an ordinary answer: normal weight
        assert os.getpriority(os.PRIO_PROCESS, w.proc.pid) == 10  # task nice stays low

        outcome = []

        def slow():
            try:
                pool.call(HANGING, 30)
            except (PoolTimeout, WorkerFailed):
                outcome.append("ended")

        t = threading.Thread(target=slow)
        t.start()
        seen = set()
        while t.is_alive() and 10 not in seen:  # observed while the same answer still runs
            seen.add(autogroup_nice(w.proc.pid))
        assert 10 in seen and w.alive() and t.is_alive()
        w.proc.kill()  # end the hanging answer now (the pool reports the dead worker as failed)
        t.join(60)
        assert pool.call({"gold": ["num", 3, 0], "pred": ["num", 3, 0]}, 60)["equal"] is True
        (w2,) = pool._workers
        assert w2 is not w and autogroup_nice(w2.proc.pid) == 0
    finally:
        pool.shutdown()
