"""Run one untrusted process under limits and watch it until it is gone (stdlib only).

``run_process`` strings four parts together, one module each: ``spawn`` (start it: the
spawn server, the one-shot shim or a fork), ``capture`` (stdout/stderr with caps),
``watch`` (poll pipes, CPU and wall time; kill at a limit) and ``report`` (exit status,
CPU time and peak memory from the cgroup or the spawner). The caller (``core.Runner``)
runs one process at a time from a single-threaded agent, which keeps fork-then-exec safe.
"""

from __future__ import annotations

import ctypes
import os
import time
from dataclasses import dataclass

from sandboxes.runner import report as reporting
from sandboxes.runner.capture import Capture
from sandboxes.runner.cpu_meter import CgroupMeter, TreeMeter
from sandboxes.runner.spawn import SpawnServer, spawn
from sandboxes.runner.watch import kill_run, read_report_to_eof, watch

_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_CHILD_SUBREAPER = 36
PR_SET_DUMPABLE = 4


def set_child_subreaper() -> None:
    """Orphaned grandchildren (double-forked daemons) get re-parented to us, not to init."""
    _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def set_not_dumpable() -> None:
    """Make this process's /proc files (environ, mem, fd) root-only, even for our own uid."""
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


@dataclass
class Outcome:
    """What happened, before classification."""

    exit_code: int | None = None
    signal: int | None = None
    cpu_time_s: float = 0.0
    wall_time_s: float = 0.0
    memory_kb: int = 0
    stdout: bytes = b""
    output_bytes: int = 0
    stderr: bytes = b""
    killed_for: str | None = None  # 'output' | 'wall' | 'cpu' | 'stopped' when the agent killed it
    setup_error: str | None = None  # the child never reached exec (an internal error)
    oom_killed: bool = False  # the run's cgroup hit its memory limit and the kernel killed in it
    in_cgroup: bool = False  # CPU/memory came from the run's cgroup (OOM kills show as oom_killed)


@dataclass(frozen=True)
class Identity:
    """Who the run executes as: uid/gid (None: keep the caller's, e.g. inside Lambda)."""

    uid: int | None = None
    gid: int | None = None


def run_process(argv: list[str], *, env: dict[str, str], cwd: str, stdin_fd: int,
                rlimits, ident: Identity, cpu_limit_s: float, wall_limit_s: float,
                output_cap: int, stderr_cap: int, use_seccomp: bool = True,
                shim: str | None = None, cgroup=None, server: SpawnServer | None = None,
                idle_limit_s: float | None = None) -> Outcome:
    """Run argv to completion under the limits; kill everything it started at the end.

    ``server``: a ``spawn.SpawnServer`` (fastest); else ``shim``: path of the built
    spawn_shim (posix_spawn); neither: os.fork() here.
    ``cgroup``: the run's ``cgroup.RunCgroup`` (CPU time, memory and pids of the whole
    tree, killed as one); None: a /proc scan of the run's processes measures CPU time.
    """
    res = Outcome()
    start = time.monotonic()
    st = spawn(argv, env=env, cwd=cwd, stdin_fd=stdin_fd, rlimits=rlimits, uid=ident.uid,
               gid=ident.gid, use_seccomp=use_seccomp,
               cgroup_procs=cgroup.procs_files if cgroup is not None else [], shim=shim, server=server)
    if isinstance(st, str):
        res.setup_error = st
        return res
    meter = CgroupMeter(cgroup) if cgroup is not None else TreeMeter(st.pid, ident.uid)
    cap = Capture(output_cap, stderr_cap)
    res.killed_for, report, report_eof = watch(st, cap, meter, cgroup, cpu_limit_s, wall_limit_s, start,
                                               idle_limit_s)
    status = ru = None
    if st.child_of_ours:
        _, status, ru = os.wait4(st.pid, 0)
    elif not report_eof and not read_report_to_eof(st.ep_r, report):
        report += b"E spawn server did not report the end of a killed run\n"
    res.wall_time_s = time.monotonic() - start
    tree_cpu = meter.cpu_s() if cgroup is None else 0.0  # before the leftovers are killed
    kill_run(st, cgroup)  # whatever it left behind
    if res.killed_for != "output":
        cap.drain(st.out_r, True)
        cap.drain(st.err_r, False)
        if cap.over:
            res.killed_for = "output"
    if st.child_of_ours:
        _read_available(st.ep_r, report)
    for fd in (st.out_r, st.err_r, st.ep_r):
        os.close(fd)
    res.stdout, res.stderr = cap.stdout, cap.stderr
    res.output_bytes = cap.out_len
    reporting.finish(res, report, status=status, ru=ru, via=st.via, base_kb=st.base_kb,
                     tree_cpu=tree_cpu, cgroup=cgroup)
    return res


def _read_available(fd: int, into: bytearray) -> None:
    while True:
        try:
            chunk = os.read(fd, 4096)
        except BlockingIOError:
            return
        if not chunk:
            return
        into += chunk
