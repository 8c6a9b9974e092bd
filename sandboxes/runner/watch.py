"""Watch a started program until its main process ends or a limit is hit (stdlib only).

One poll loop over the output pipes, the report pipe and (when the program is our own
child) a pidfd: output goes to the ``Capture``, report lines are collected, CPU time is
read from the meter only once the budget could have been spent, and the wall deadline
bounds the wait. A limit kills the whole run (``kill_run``).
"""

from __future__ import annotations

import os
import select
import signal
import time

from sandboxes.runner.capture import CHUNK, Capture
from sandboxes.runner.cpu_meter import HAVE_SCHEDSTAT, cpus_idle_s
from sandboxes.runner.spawn import Started
from sandboxes.runner.stopped import StopWatch

_CPU_POLL_MAX_S = 0.05
_NCPU = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def kill_run(st: Started, cgroup) -> None:
    """The cgroup (everything the run started, setsid or not), then the program's session group."""
    if cgroup is not None:
        cgroup.kill()
    # The group, and the process itself if setsid() was not reached (shim/fork: it is our
    # unreaped child, so its pid cannot have been reused).
    kills = (os.killpg, os.kill) if st.child_of_ours else (os.killpg,)
    for fn in kills:
        try:
            fn(st.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _has_exited(pid: int) -> bool:
    """Without a pidfd (old kernels): has pid exited? Leaves it unreaped (WNOWAIT)."""
    info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    return info is not None


class IdleWatch:
    """The idleness limit: a run (or compile) whose CPU time grows by less than ``SHARE`` of
    the clock for ``limit_s`` is stopped ("idle"). A program that sleeps, or waits on a
    device or pipe that never answers, uses no CPU until its wall limit while it holds a
    sandbox slot: a compile of ``#include "/dev/ptmx"`` held one for 40 s (code review 5), and
    sleeping tests held every slot for their 15 s wall limits while another client's 0.06 s
    answer waited (hostile review 6). A share, not "any growth": ``while True: sleep(0.05)``
    wakes up and uses a few microseconds a second. ``limit_s`` None: no limit.

    Waiting for a core is not idleness. On a loaded machine (an RL job's trainer and
    generator beside the verifier) a right answer's run could get too little CPU for a second
    and was judged TLE. So once a window is over, the watch asks two things before it says
    idle, each against the first poll of the window that saw no progress:
    * did the run want a CPU? ``active()`` (the meter's ``active_s``, from schedstat): its
      threads' run-queue time grew by ``SHARE`` of the clock, or one is runnable now;
    * was none free? ``free()``: the CPUs the run may use were idle for less than
      ``STARVED_IDLE`` of the clock (a runnable thread and an idle CPU do not coexist for
      long: the scheduler runs it).
    Both: it was starved, and a new window starts. The second alone keeps a sleeper idle on
    a busy machine; the first alone was beaten (a review): 60 threads that sleep to the same
    instant queue behind each other on an idle core, their summed wait ~N^2/2 times their
    CPU, and held a slot to its wall limit with 14 ms of CPU. Both are judged over at least
    ``EVIDENCE`` of the limit (the watch's own polls come late when its core is busy).
    Nothing visible (the run not begun, or over and not yet reported) starts a new window
    too; the wall limit still bounds every run. ``active`` None: CPU time alone decides (no
    schedstat); ``free`` None: wanting a CPU decides (no /proc/stat)."""

    SHARE = 0.01
    STARVED_IDLE = 0.5
    EVIDENCE = 0.25  # of the limit: the least time between the baseline and a verdict

    def __init__(self, limit_s: float | None, start: float, active=None, free=None):
        self.limit_s, self.used, self.since = limit_s, 0.0, start
        self.active, self.free = active, free
        # (active(), free(), when) at the first poll of the window without progress
        self._base: tuple | None = None

    def idle(self, used: float, now: float) -> bool:
        if self.limit_s is None:
            return False
        if used - self.used >= self.SHARE * (now - self.since):
            self._progress(used, now)
            return False
        if self.active is not None and self._base is None:
            self._base = (self.active(), self._free(), now)
        if now - self.since < self.limit_s:
            return False
        if self.active is not None:
            if now - self._base[2] < self.EVIDENCE * self.limit_s:
                return False  # our own polls were late (a busy core): look a while longer
            if self._starved(now):
                self._progress(used, now)
                return False
        return True

    def _starved(self, now: float) -> bool:
        before, free_before, then = self._base
        after = self.active()
        if before is None or after is None:
            return True  # nothing of the run to look at: no verdict on it
        wanted = after[1] or after[0] - before[0] >= self.SHARE * (now - then)
        if not wanted:
            return False
        free_after = self._free()
        if free_before is None or free_after is None:
            return True  # (no /proc/stat: wanting a CPU decides)
        return free_after - free_before < self.STARVED_IDLE * (now - then)

    def _free(self) -> float | None:
        return self.free() if self.free is not None else None

    def _progress(self, used: float, now: float) -> None:
        self.used, self.since, self._base = used, now, None


def watch_idle(limit_s: float | None, start: float, meter) -> IdleWatch:
    """The idleness watch of a run measured by ``meter`` (schedstat and the CPUs' idle time
    asked when the kernel keeps them). The run's CPUs are ours: a slot's runs inherit its
    agent's core, and seccomp keeps them there."""
    if not HAVE_SCHEDSTAT:
        return IdleWatch(limit_s, start)
    return IdleWatch(limit_s, start, meter.active_s, lambda: cpus_idle_s(os.sched_getaffinity(0)))


def run_idle_limit(cpu_limit_s: float, wall_limit_s: float) -> float | None:
    """A test's idleness limit: its CPU limit, at least ``RUN_IDLE_MIN_S``; None when the
    wall limit comes first anyway. No solution needs to sleep: Codeforces' verdict for
    this is "Idleness limit exceeded"; here it is TLE with its own message."""
    limit = max(RUN_IDLE_MIN_S, cpu_limit_s)
    return limit if limit < wall_limit_s else None


RUN_IDLE_MIN_S = 1.0


def watch(st: Started, cap: Capture, meter, cgroup, cpu_limit_s: float, wall_limit_s: float,
          start: float, idle_limit_s: float | None = None) -> tuple[str | None, bytearray, bool]:
    """Returns (killed_for, report lines read, whether the report pipe reached EOF).
    ``idle_limit_s``: kill ("idle") once the run's CPU time has not grown for that long (a
    compiler reading a device or pipe that never answers uses no CPU until the wall limit)."""
    report = bytearray(st.report)
    pidfd = -1
    if st.child_of_ours:
        try:
            pidfd = os.pidfd_open(st.pid)
        except OSError:
            pidfd = -1
    poller = select.poll()
    for fd in (st.out_r, st.err_r, st.ep_r):
        poller.register(fd, select.POLLIN)
    if pidfd >= 0:
        poller.register(pidfd, select.POLLIN)
    deadline = start + wall_limit_s
    # No CPU check before the whole budget could have been spent: short runs never poll.
    next_cpu_check = start + max(meter.min_poll_s, min(_CPU_POLL_MAX_S, cpu_limit_s / _NCPU))
    killed_for = None
    report_eof = False
    idle = watch_idle(idle_limit_s, start, meter)
    # The one-shot shim waits for the program: the program's pid is on its P line.
    stops = StopWatch(start, None, report=report) if st.via == "shim" else StopWatch(start, st.pid)
    try:
        while killed_for is None:
            now = time.monotonic()
            if now >= deadline:
                killed_for = "wall"
                break
            if now >= next_cpu_check:
                used = meter.cpu_s()
                if used >= cpu_limit_s:
                    killed_for = "cpu"
                    break
                if stops.stopped(now):
                    killed_for = "stopped"
                    break
                if idle.idle(used, now):
                    killed_for = "idle"
                    break
                # CPU time grows at most _NCPU times as fast as the clock: sleeping for the
                # budget left / _NCPU cannot overshoot by more than one minimum poll.
                left = (cpu_limit_s - used) / _NCPU
                next_cpu_check = now + max(meter.min_poll_s, min(_CPU_POLL_MAX_S, left))
                if st.child_of_ours and pidfd < 0 and _has_exited(st.pid):
                    break
            timeout = max(0.0, min(deadline, next_cpu_check) - now)
            exited = False
            for fd, _ev in poller.poll(timeout * 1000 + 1):
                if fd == pidfd:
                    exited = True
                    continue
                try:
                    chunk = os.read(fd, CHUNK if fd != st.ep_r else 4096)
                except BlockingIOError:
                    continue
                if not chunk:
                    poller.unregister(fd)
                    if fd == st.ep_r:
                        report_eof = True
                        # Server: EOF follows the R line (the main process has ended and
                        # been reaped) or the server's death; either way the wait is over.
                        exited = exited or not st.child_of_ours
                    continue
                if fd == st.ep_r:
                    report += chunk
                    continue
                cap.add(fd == st.out_r, chunk)
                if cap.over:
                    killed_for = "output"
                    break
            if exited:
                break
    finally:
        if pidfd >= 0:
            os.close(pidfd)
    if killed_for is not None:
        kill_run(st, cgroup)
    return killed_for, report, report_eof


def read_report_to_eof(ep_r: int, report: bytearray, timeout_s: float = 10.0) -> bool:
    """Block until the report pipe's EOF (the server's R line after a kill); False on timeout."""
    poller = select.poll()
    poller.register(ep_r, select.POLLIN)
    deadline = time.monotonic() + timeout_s
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not poller.poll(left * 1000):
            return False
        try:
            chunk = os.read(ep_r, 4096)
        except BlockingIOError:
            continue
        if not chunk:
            return True
        report += chunk
