"""Cgroup subtrees left by a service that died without closing are removed at the next start,
and only those: a group that still holds a process, or whose owner lives, stays."""

from __future__ import annotations

import os
import subprocess

import pytest

from sandboxes.backends import cgroup_host as ch

try:
    _MOUNTS = ch._mounts()
except OSError:
    _MOUNTS = {}
_ROOT = _MOUNTS.get("cpuacct") or _MOUNTS.get("unified")
pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or _ROOT is None or not os.access(_ROOT, os.W_OK),
    reason="needs root and a writable cgroup hierarchy")


def _dead_pid() -> int:
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def test_sweep_removes_only_empty_trees_of_dead_owners():
    dead = _dead_pid()
    stale = os.path.join(_ROOT, f"oubliette-local-{dead}-0")
    busy = os.path.join(_ROOT, f"oubliette-docker-{dead}-123-{dead}-1")
    live = os.path.join(_ROOT, f"oubliette-local-{os.getppid()}-7")
    other = os.path.join(_ROOT, f"someone-else-{dead}-0")
    for d in (stale, busy, live, other):
        os.makedirs(os.path.join(d, "slot-0"), exist_ok=True)
    os.makedirs(os.path.join(stale, "slot-0", "run-3"))
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        with open(os.path.join(busy, "slot-0", "cgroup.procs"), "w") as f:
            f.write(str(sleeper.pid))
        assert ch.sweep_dead([_ROOT]) == 1
        assert not os.path.exists(stale)  # dead owner, empty: removed with its children
        assert os.path.isdir(busy)  # dead owner but a process inside: kept, process untouched
        assert sleeper.poll() is None
        assert os.path.isdir(live) and os.path.isdir(other)  # live owner / not ours: kept
    finally:
        sleeper.kill()
        sleeper.wait()
        for d in (busy, live, other):
            for sub in ("slot-0", ""):
                try:
                    os.rmdir(os.path.join(d, sub) if sub else d)
                except OSError:
                    pass
