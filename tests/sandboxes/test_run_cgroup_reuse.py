"""Run groups reused from one run to the next (v1, ``RunCgroup.recycle``).

The oracle is the same runner with ``reuse_cgroups=False`` (a new group every run, the
behaviour before reuse): every figure a run reports and every verdict must come out the
same, whatever the run before it did in the group (used CPU, 80 MB, an OOM kill, kernel
caches left charged, a process left behind).
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import tempfile
import time

import pytest

from sandboxes.runner.cgroup import RunCgroup
from sandboxes.runner.core import Runner, RunnerConfig

AB = "a, b = map(int, input().split())\nprint(a + b)\n"
HEAVY = "x = [0] * 10**7\ns = 0\nfor i in range(2 * 10**6):\n    s += i\nprint(len(x), s)\n"
OOM = "x = [0] * 10**8\n"  # 800 MB against a 64 MB limit
# 100,000 failed lookups of names nobody looked up before (the kernel charges a cached
# dentry to the group that made it) leave ~20 MB of negative dentries charged to the group.
DENTRIES = ("import os\ntag = os.urandom(8).hex()\nfor i in range(100000):\n    try:\n"
            "        os.stat('/nonexist-%s-%d' % (tag, i))\n    except OSError:\n        pass\nprint('ok')\n")


def _tree():
    from sandboxes.backends.cgroup_host import CgroupTree

    if os.geteuid() != 0:
        pytest.skip("needs root to create cgroups")
    tree = CgroupTree.create("oubliette-reuse")
    if tree is None:
        pytest.skip(f"no usable cgroup hierarchy: {CgroupTree.reason}")
    if tree.label != "cgroup-v1":
        pytest.skip("run groups are reused on cgroup v1 only")
    return tree


@pytest.fixture
def scratch():
    d = tempfile.mkdtemp(prefix="oubliette-reuse-", dir="/tmp")
    os.chmod(d, 0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


class Traced:
    """A runner as the agent drives it (reset and housekeeping after each reply), recording
    the group each run used."""

    def __init__(self, slot, scratch: str, reuse: bool, uid: int):
        self.runner = Runner(RunnerConfig(scratch_root=os.path.join(scratch, f"r{int(reuse)}"), uid=uid, gid=uid,
                                          python_fork_server=True, cgroup=slot, reuse_cgroups=reuse))
        self.runner.defer_reset = True
        self.groups: list[RunCgroup] = []
        take = self.runner._take_group

        def traced(lim):
            group = take(lim)
            self.groups.append(group)
            return group
        self.runner._take_group = traced
        self.programs: dict[str, dict] = {}

    def run(self, name: str, code: str, stdin: bytes = b"2 3\n", **limits) -> dict:
        if name not in self.programs:
            c = self.runner.compile({"language": "python", "code": code})
            self.runner.finish_reset()
            self.runner.housekeeping()
            assert c["status"] == "OK", c
            self.programs[name] = c["artifact"]
        out = self.runner.run({"program": self.programs[name], "limits": limits,
                               "stdin": {"data_b64": base64.b64encode(stdin).decode()}})
        assert self.runner.finish_reset() == []
        self.runner.housekeeping()
        return out


def _pair(slot_reuse, slot_fresh, scratch):
    return Traced(slot_reuse, scratch, True, 65534), Traced(slot_fresh, scratch, False, 65533)


def test_recycled_group_reports_each_run_from_zero(scratch):
    """After a run that used CPU and 80 MB, A+B in the same group reports its own figures:
    the same as in a new group."""
    tree = _tree()
    try:
        reuse, fresh = _pair(tree.slot("slot-a"), tree.slot("slot-b"), scratch)
        for _ in range(3):
            for name, code in (("heavy", HEAVY), ("ab", AB)):
                a, b = reuse.run(name, code), fresh.run(name, code)
                assert a["status"] == b["status"] == "OK", (a, b)
                assert a["stdout_b64"] == b["stdout_b64"]
                if name == "ab":
                    assert a["cpu_time_s"] < 0.05, f"CPU of the run before counted: {a}"
                    assert abs(a["memory_kb"] - b["memory_kb"]) <= 512, (a, b)
                else:
                    assert a["memory_kb"] > 60_000 and abs(a["memory_kb"] - b["memory_kb"]) <= 2048, (a, b)
        paths = {g.paths["memory"] for g in reuse.groups}
        assert len(paths) == 1, f"one group served every run: {paths}"
        assert len({g.paths["memory"] for g in fresh.groups}) == len(fresh.groups), "oracle: a new group per run"
    finally:
        tree.close()


def test_group_with_an_oom_kill_is_not_reused(scratch):
    """The OOM counter never resets: the group goes, and the next run is not an MLE."""
    tree = _tree()
    try:
        reuse, _ = _pair(tree.slot("slot-a"), tree.slot("slot-b"), scratch)
        assert reuse.run("ab", AB)["status"] == "OK"
        out = reuse.run("oom", OOM, memory_mb=64)
        assert out["status"] == "MLE", out
        used = reuse.groups[-1].paths["memory"]
        after = reuse.run("ab", AB)
        assert after["status"] == "OK" and base64.b64decode(after["stdout_b64"]) == b"5\n", after
        assert reuse.groups[-1].paths["memory"] != used, "the OOM group was reused"
    finally:
        tree.close()


def test_group_with_kernel_caches_left_charged_is_not_reused(scratch):
    """A run that leaves megabytes of kernel memory charged (negative dentries) does not
    shrink the next run's memory: the next run gets a new group."""
    tree = _tree()
    try:
        reuse, fresh = _pair(tree.slot("slot-a"), tree.slot("slot-b"), scratch)
        assert reuse.run("dentries", DENTRIES)["status"] == "OK"
        used = reuse.groups[-1].paths["memory"]
        after, oracle = reuse.run("ab", AB), fresh.run("ab", AB)
        assert after["status"] == "OK" and abs(after["memory_kb"] - oracle["memory_kb"]) <= 512, (after, oracle)
        assert reuse.groups[-1].paths["memory"] != used, "a group with megabytes left charged was reused"
        assert not os.path.exists(used), "the group left charged was not removed"
    finally:
        tree.close()


def test_memory_limit_verdicts_match_a_new_group(scratch):
    """Programs just under and over a 64 MB limit, each right after a run that left the
    group's caches charged as far as reuse allows: the same verdicts as in new groups."""
    tree = _tree()
    try:
        reuse, fresh = _pair(tree.slot("slot-a"), tree.slot("slot-b"), scratch)
        cases = [("under", "x = bytearray(40 << 20)\nprint(len(x))\n", "OK"),
                 ("over", "x = bytearray(80 << 20)\nprint(len(x))\n", "MLE")]
        for name, code, want in cases * 2:
            reuse.run("ab", AB)
            a, b = reuse.run(name, code, memory_mb=64), fresh.run(name, code, memory_mb=64)
            assert a["status"] == b["status"] == want, (name, a, b)
    finally:
        tree.close()


def test_recycle_refuses_a_group_with_a_process_or_on_v2():
    tree = _tree()
    try:
        group = RunCgroup(tree.slot("slot-p"), "run-p", memory_bytes=64 << 20, max_pids=16)
        proc = subprocess.Popen(["sleep", "30"])
        try:
            for path in group.procs_files:
                with open(path, "w") as f:
                    f.write(str(proc.pid))
            assert not group.recycle(), "not killed yet"
            group._empty = True  # as if kill() had said so while a process is still there
            assert not group.recycle(), "a group with a process in it was reused"
        finally:
            proc.kill()
            proc.wait()
        deadline = time.monotonic() + 10
        while group.pids() and time.monotonic() < deadline:
            time.sleep(0.01)
        group.kill()
        assert group.recycle(), "an empty group with nothing charged is reusable"
        assert group.cpu_s() == 0.0 and group.memory_peak_kb() == 0
        group.remove()
        v2 = RunCgroup.__new__(RunCgroup)
        v2.version, v2.paths, v2._empty = 2, {"unified": "/nonexistent"}, True
        assert not v2.recycle()
    finally:
        tree.close()


def test_recycled_group_peak_excludes_what_was_charged_before():
    """A file on tmpfs stays charged to the group after its writer is gone; the group is
    reused (here with a bound raised to let 20 MB pass) and the next run's peak does not
    include what was charged before it began."""
    tree = _tree()
    shm = tempfile.mkdtemp(prefix="oubliette-reuse-", dir="/dev/shm")
    try:
        group = RunCgroup(tree.slot("slot-m"), "run-m", memory_bytes=256 << 20, max_pids=16)

        def in_group(code: str) -> None:
            pid = os.fork()
            if pid == 0:
                try:
                    for path in group.procs_files:
                        with open(path, "w") as f:
                            f.write("0")
                    os.execv("/usr/bin/python3", ["python3", "-S", "-c", code])
                finally:
                    os._exit(127)
            _, status = os.waitpid(pid, 0)
            assert status == 0, status

        in_group(f"open({os.path.join(shm, 'left')!r}, 'wb').write(b'x' * (20 << 20))")
        group.kill()
        assert not group.recycle(), "20 MB left charged is over the default bound"
        assert group.recycle(max_leftover_bytes=64 << 20)
        assert group.memory_peak_kb() < 64, group.memory_peak_kb()
        in_group("import mmap\nm = mmap.mmap(-1, 8 << 20)\nfor _ in range(128):\n    m.write(b'y' * (1 << 16))")
        peak = group.memory_peak_kb()
        assert 8 * 1024 <= peak < 14 * 1024, f"peak {peak} KB: 8 MB and the interpreter, nothing before"
        group.kill()
        group.remove()
    finally:
        shutil.rmtree(shm, ignore_errors=True)
        tree.close()
