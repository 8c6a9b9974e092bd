"""Slow math answers run in a cpu.idle cgroup that is held while other requests are in flight.

Checked from the kernel's side (/proc/<pid>/cgroup, the group's cpu files, the worker's CPU
time), not from the pool's own flags alone. Needs root and a cpu hierarchy with cpu.idle
(skipped elsewhere; the fallback is tested everywhere)."""

from __future__ import annotations

import os
import subprocess
import threading
import time

import pytest

from verifier.math import idle_group as ig
from verifier.math.pool import PoolTimeout, WorkerPool

HANGING = {"gold": ["num", 1, 0], "pred": ["fact", ["num", 10 ** 10, 0]]}
EASY = {"gold": ["num", 2, 0], "pred": ["num", 2, 0]}

_probe = ig.IdleGroup.create()
if _probe is not None:
    _probe.remove()
needs_group = pytest.mark.skipif(_probe is None, reason=f"no cpu.idle group here: {ig.IdleGroup.reason}")


def _cpu_group(pid: int) -> str:
    with open(f"/proc/{pid}/cgroup") as f:
        for line in f:
            _, ctrls, path = line.rstrip("\n").split(":", 2)
            if "cpu" in ctrls.split(",") or ctrls == "":
                return path
    raise AssertionError("no cpu line")


def _cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _read(path: str) -> str:
    with open(path) as f:
        return f.read().strip()


@needs_group
def test_group_is_idle_moves_processes_and_holds():
    g = ig.IdleGroup.create()
    p = subprocess.Popen(["sleep", "60"])
    try:
        assert _read(os.path.join(g.path, "cpu.idle")) == "1"
        home = _cpu_group(os.getpid())
        assert g.enter(p.pid) and _cpu_group(p.pid).endswith(os.path.basename(g.path))
        assert g.members() == [p.pid]
        assert g.leave(p.pid) and _cpu_group(p.pid) == home
        quota = os.path.join(g.path, "cpu.cfs_quota_us" if g.version == 1 else "cpu.max")
        before = g.held_total()
        assert g.held_total() == before  # not held: the sum stands still
        g.hold(True)
        assert g.held and _read(quota).split()[0] == str(ig.HELD_QUOTA_US)
        g.hold(False)
        assert not g.held and _read(quota).split()[0] in ("-1", "max")
        assert g.held_total() > before
        g.enter(p.pid)
    finally:
        g.remove()
        p.kill()
        p.wait()
    assert not os.path.exists(g.path)  # removed, its member moved home first


@needs_group
def test_group_left_by_a_dead_service_is_swept():
    g = ig.IdleGroup.create()
    parent = g.home
    g.remove()
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = os.path.join(parent, f"{ig.PREFIX}{dead.pid}")
    os.mkdir(stale)
    orphan = subprocess.Popen(["sleep", "60"])
    try:
        with open(os.path.join(stale, "cgroup.procs"), "w") as f:
            f.write(str(orphan.pid))
        g2 = ig.IdleGroup.create()
        assert not os.path.exists(stale)
        assert not _cpu_group(orphan.pid).endswith(os.path.basename(stale))
        g2.remove()
    finally:
        orphan.kill()
        orphan.wait()


def test_no_group_is_a_reason_not_a_failure(monkeypatch, tmp_path):
    assert ig.IdleGroup.create(parent=str(tmp_path / "missing")) is None
    assert "cpu.idle" in ig.IdleGroup.reason or "missing" in ig.IdleGroup.reason
    monkeypatch.setattr(ig.IdleGroup, "create", classmethod(lambda cls, parent=None: None))
    monkeypatch.setattr(ig.IdleGroup, "reason", "read-only cgroup fs", raising=False)
    pool = WorkerPool(size=1, nice=10, demote_after_s=0.05)
    try:
        pool.hold_background(True)  # nothing to hold: no effect, no error
        assert pool.call(EASY, 60)["equal"] is True
        with pytest.raises(PoolTimeout):
            pool.call(HANGING, 0.3)
        assert pool.idle_group is None and pool.idle_group_reason == "read-only cgroup fs"
    finally:
        pool.shutdown()


@needs_group
def test_slow_answer_enters_the_group_and_the_next_request_leaves_it():
    pool = WorkerPool(size=1, nice=10, demote_after_s=0.05)
    try:
        assert pool.call(EASY, 60)["equal"] is True
        (w,) = pool._workers
        name = os.path.basename(pool.idle_group.path)
        assert not _cpu_group(w.proc.pid).endswith(name)  # an ordinary answer stays home
        seen = []
        t = threading.Thread(target=lambda: seen.append(pytest.raises(PoolTimeout, pool.call, HANGING, 1.0)))
        t.start()
        while not w.in_idle_group and t.is_alive():
            time.sleep(0.01)
        seen.append(_cpu_group(w.proc.pid))
        t.join()
        assert seen[0].endswith(name)  # demoted while it ran
        # the timed-out worker was replaced; the replacement imports in the group...
        (r,) = pool._workers
        assert r is not w and _cpu_group(r.proc.pid).endswith(name)
        # ...and leaves it when a request needs it
        assert pool.call(EASY, 60)["equal"] is True
        assert not _cpu_group(r.proc.pid).endswith(name)
    finally:
        pool.shutdown()
    assert not os.path.exists(pool.idle_group.path)


@needs_group
def test_held_answer_gets_its_budget_back_and_barely_runs():
    """Held for its whole life, a slow answer is paused (almost no CPU) and times out only
    after budget + max_stretch x budget: the held time is not charged to the prediction.
    An ordinary answer meanwhile is not held (it never enters the group)."""
    budget, stretch = 0.4, 2.0
    pool = WorkerPool(size=2, nice=10, demote_after_s=0.05, max_stretch=stretch)
    try:
        pool.warm_up()
        pool.hold_background(True)
        ws = list(pool._workers)
        cpu0 = {w.proc.pid: _cpu_s(w.proc.pid) for w in ws}
        usage = {}

        def watch():  # CPU time of the worker holding the slow answer, while it is held
            while not done.is_set():
                for w in ws:
                    if w.in_idle_group and w.alive():
                        try:
                            usage[w.proc.pid] = _cpu_s(w.proc.pid) - cpu0[w.proc.pid]
                        except OSError:
                            pass
                time.sleep(0.02)

        done = threading.Event()
        threading.Thread(target=watch, daemon=True).start()
        t0 = time.monotonic()
        with pytest.raises(PoolTimeout):
            pool.call(HANGING, budget)
        elapsed = time.monotonic() - t0
        done.set()
        assert elapsed >= budget * (1 + stretch)  # its budget, stretched by the held time
        assert usage and max(usage.values()) < 0.5 * budget  # held: it barely ran
        assert pool.call(EASY, 60)["equal"] is True  # an ordinary answer is never held
    finally:
        pool.hold_background(False)
        pool.shutdown()
