"""Per-run cgroups and the no-cgroup fallback, without a backend: the runner on this host.

The backend suites (tests/security/test_run_accounting.py) show the verdicts; these tests
pin the pieces: limits per mode, the group's life cycle (made, counted, killed with
daemons that left the session, removed) and the /proc-scan meter that replaces the
cgroup where there is none (Lambda).
"""

from __future__ import annotations

import base64
import os
import resource
import shutil
import tempfile
import time

import pytest

from sandboxes.runner.cgroup import CgroupDirs, RunCgroup, kill_v2
from sandboxes.runner.core import Runner, RunnerConfig
from sandboxes.runner.limits import Limits, cpu_backstop_s, rlimits_for

UNWAITED = r"""
#include <unistd.h>
int main(void) {
    for (int i = 0; i < 2; i++) if (fork() == 0) { volatile unsigned long x = 0; for (;;) x++; }
    sleep(20);  /* the parent itself uses no CPU: only its unwaited children do */
    return 0;
}
"""


def _tree():
    from sandboxes.backends.cgroup_host import CgroupTree

    if os.geteuid() != 0:
        pytest.skip("needs root to create cgroups")
    tree = CgroupTree.create("oubliette-test")
    if tree is None:
        pytest.skip(f"no usable cgroup hierarchy: {CgroupTree.reason}")
    return tree


def _join(group) -> None:
    """In a forked child: move into the run's group, as the spawn shim does."""
    for path in group.procs_files:
        with open(path, "w") as f:
            f.write("0")


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for init to reap it is dead)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


@pytest.fixture
def scratch():
    """A scratch root the run uid can reach (pytest's tmp_path sits below 0700 dirs)."""
    d = tempfile.mkdtemp(prefix="oubliette-cg-", dir="/tmp")
    os.chmod(d, 0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def _run(runner: Runner, lang: str, code: str, **limits) -> dict:
    c = runner.compile({"language": lang, "code": code, "limits": {"wall_time_s": 60, "cpu_time_s": 30}})
    assert c["status"] == "OK", c
    return runner.run({"program": c["artifact"], "limits": limits})


def test_rlimits_per_mode():
    lim = Limits(cpu_time_s=1.0, memory_mb=256)
    with_cg = dict(rlimits_for(lim, stack_mb=None, cgroup=True))
    without = dict(rlimits_for(lim, stack_mb=None, cgroup=False))
    assert resource.RLIMIT_AS not in with_cg, "with a cgroup, address space is not memory"
    assert without[resource.RLIMIT_AS] == (256 << 20, 256 << 20)
    # The CPU rlimit is a backstop only, well clear of the verdict's limit.
    assert with_cg[resource.RLIMIT_CPU][0] >= 2 and cpu_backstop_s(10.0) >= 15
    # Native stack: as deep as memory allows; threads then get glibc's default, not 256 MB each.
    assert with_cg[resource.RLIMIT_STACK][0] == resource.getrlimit(resource.RLIMIT_STACK)[1]


def test_cgroup_dirs_parse():
    assert CgroupDirs.parse([]) is None
    v1 = CgroupDirs.parse(["cpuacct=/a", "memory=/b", "pids=/c", "freezer=/d"])
    assert v1.version == 1 and v1.label == "cgroup-v1"
    # pids first (a process joins in this order: pids.current counts every one that began
    # to join); the freezer of an older caller is not used.
    assert list(v1.dirs) == ["pids", "cpuacct", "memory"]
    assert CgroupDirs.parse(v1.to_args()[1::2]) == v1
    assert CgroupDirs.parse(["unified=/u"]).version == 2
    with pytest.raises(ValueError, match="missing pids"):
        CgroupDirs.parse(["cpuacct=/a", "memory=/b"])
    with pytest.raises(ValueError, match="KEY=DIR"):
        CgroupDirs.parse(["memory"])


def test_run_group_kills_daemons_and_is_removed():
    """A double-forked, setsid()ed daemon leaves the session but not the group."""
    tree = _tree()
    try:
        slot = tree.slot("slot-t")
        group = RunCgroup(slot, "run-t", memory_bytes=64 << 20, max_pids=16)
        pid = os.fork()
        if pid == 0:
            _join(group)
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    while True:
                        pass
                os._exit(0)
            os._exit(0)
        os.waitpid(pid, 0)
        deadline = time.monotonic() + 10
        while not group.pids() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert group.pids(), "the daemon should be in the group"
        while group.cpu_s() < 0.05 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert group.cpu_s() >= 0.05, "the group counts its processes' CPU"
        daemons = group.pids()
        group.remove()
        assert not [d for d in daemons if _alive(d)], "a daemon survived the group's kill"
        assert not any(os.path.exists(p) for p in group.paths.values())
    finally:
        tree.close()
    assert not any(os.path.exists(p) for p in tree.base.values())


def test_kill_stops_a_fork_loop_and_empties_the_group():
    """Without a freezer, the kill refuses forks (pids.max 0) and kills until none is left:
    processes that fork as fast as they can, each child forking again, all die."""
    tree = _tree()
    try:
        slot = tree.slot("slot-f")
        # (memory well above what 32 forked interpreters touch: the limit here is pids.max)
        group = RunCgroup(slot, "run-f", memory_bytes=2 << 30, max_pids=32)
        assert group.procs_files[0].startswith(group.paths["pids"])
        pid = os.fork()
        if pid == 0:
            _join(group)
            os.setsid()
            while True:  # every process forks for ever; failed forks are retried
                try:
                    os.fork()
                except OSError:
                    pass
        deadline = time.monotonic() + 60
        current = f"{group.paths['pids']}/pids.current"
        while int(open(current).read()) < 32 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert int(open(current).read()) == 32, "the loop should fill the group up to pids.max"
        members = group.pids()
        group.kill()
        assert group.pids() == [], "the kill leaves nothing in the group"
        assert open(f"{group.paths['pids']}/pids.max").read().strip() == "0"
        os.waitpid(pid, 0)
        assert not [m for m in members if m != pid and _alive(m)], "a forking process survived"
        group.remove()
        assert not any(os.path.exists(p) for p in group.paths.values())
    finally:
        tree.close()


def test_kill_of_an_empty_group_reads_no_member_list():
    """The common case (the run ended by itself): a zero pids.current is the whole check,
    and it does not change the group's limits."""
    tree = _tree()
    try:
        slot = tree.slot("slot-e")
        group = RunCgroup(slot, "run-e", memory_bytes=64 << 20, max_pids=16)
        pid = os.fork()
        if pid == 0:
            _join(group)
            os._exit(0)
        os.waitpid(pid, 0)
        assert open(f"{group.paths['pids']}/pids.current").read().strip() == "0"
        group.kill()
        assert open(f"{group.paths['pids']}/pids.max").read().strip() == "16"
        group.remove()
    finally:
        tree.close()


def test_v2_kill_and_cpu_counter_on_the_unified_hierarchy():
    """The v2 group's CPU counter and cgroup.kill, on a v2 mount (this host: hybrid, no controllers)."""
    base = "/sys/fs/cgroup/unified" if os.path.isdir("/sys/fs/cgroup/unified") else "/sys/fs/cgroup"
    if os.geteuid() != 0 or not os.path.exists(f"{base}/cgroup.procs") or \
            not os.path.exists(f"{base}/cgroup.controllers"):
        pytest.skip("no v2 hierarchy")
    path = f"{base}/oubliette-test-{os.getpid()}"
    try:
        os.mkdir(path)
    except OSError as exc:
        pytest.skip(f"cannot create a v2 group: {exc}")
    try:
        if not os.path.exists(f"{path}/cgroup.kill"):
            pytest.skip("kernel without cgroup.kill")
        group = RunCgroup.__new__(RunCgroup)
        group.version, group.paths = 2, {"unified": path}
        pid = os.fork()
        if pid == 0:
            with open(f"{path}/cgroup.procs", "w") as f:
                f.write("0")
            os.fork()
            while True:
                pass
        deadline = time.monotonic() + 10
        while group.cpu_s() < 0.05 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert group.cpu_s() >= 0.05
        kill_v2(path, 10)
        os.waitpid(pid, 0)
        assert group.pids() == []
    finally:
        os.rmdir(path)


def test_runner_with_a_cgroup_counts_children_and_cleans_up(scratch):
    tree = _tree()
    try:
        slot = tree.slot("slot-r")
        runner = Runner(RunnerConfig(scratch_root=scratch, uid=65534, gid=65534, cgroup=slot))
        assert runner.accounting == tree.label
        out = _run(runner, "c", UNWAITED, cpu_time_s=0.5, wall_time_s=20)
        assert out["status"] == "TLE" and out["cpu_time_s"] >= 0.5, out
        assert out["wall_time_s"] < 10, "killed at the CPU limit, not at the wall limit"
        runner.housekeeping()  # what the agent does after each reply
        groups = [n for n in os.listdir(slot.dirs["pids"]) if n.startswith("run-")]
        assert len(groups) == 1, f"only the spare for the next run remains: {groups}"
        assert open(os.path.join(slot.dirs["pids"], groups[0], "cgroup.procs")).read() == ""
    finally:
        tree.close()


@pytest.mark.parametrize("spawn", ["shim", "fork"])
def test_fallback_meter_counts_unwaited_children(scratch, spawn):
    """No cgroup (Lambda): the /proc scan of the run's session still sees the children."""
    runner = Runner(RunnerConfig(scratch_root=scratch, spawn=spawn,
                                 uid=65534 if os.geteuid() == 0 else None,
                                 gid=65534 if os.geteuid() == 0 else None))
    assert runner.accounting == "rlimit"
    out = _run(runner, "c", UNWAITED, cpu_time_s=0.5, wall_time_s=20)
    assert out["status"] == "TLE" and out["cpu_time_s"] >= 0.5, out
    assert out["wall_time_s"] < 10, out
    ok = _run(runner, "python", "print(sum(range(10**5)))", cpu_time_s=2)
    assert ok["status"] == "OK" and base64.b64decode(ok["stdout_b64"]) == b"4999950000\n", ok


def test_cgroup_setup_failure_is_an_internal_error(tmp_path):
    """A group that cannot be made is IE (never a run with weaker accounting than announced)."""
    bogus = CgroupDirs(1, {"cpuacct": str(tmp_path / "nope"), "memory": str(tmp_path / "nope"),
                           "pids": str(tmp_path / "nope")})
    runner = Runner(RunnerConfig(scratch_root=str(tmp_path / "s"), cgroup=bogus))
    out = runner.compile({"language": "python", "code": "print(1)"})
    assert out["status"] == "IE" and "cgroup" in out["log"], out
