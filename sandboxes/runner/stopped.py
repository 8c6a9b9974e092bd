"""Notice a run whose main process has been stopped (stdlib only).

A stopped process (SIGSTOP, SIGTSTP, SIGTTIN/SIGTTOU) never finishes on its own, and its CPU
time stands still, so neither the CPU limit nor anything the program does ends the run: only
the wall limit would, and that holds a slot for seconds while other clients wait. The
function harness is the case that matters: the candidate runs under the same uid and can
stop it, and the harness's own budget for a silent candidate cannot run while it is stopped
(a hostile review held a slot 15 s a test this way at T = 2 s).

``StopWatch.stopped()`` is called from the watch loops at their CPU-check cadence (at most
every 50 ms). It samples the main process's state from ``/proc/<pid>/stat`` and adds the
time since the last sample whenever the state is stopped; once the total reaches
``STOPPED_LIMIT_S`` the run is killed as a time-limit verdict. Stopping and continuing in
turn only delays that in proportion. Nothing is read before ``CHECK_AFTER_S`` into the run,
so the short runs that make up almost all judging never pay for it.

The main process is the program itself, not the one-shot spawn shim that waits for it
(the shim reports the program's pid on the report pipe: ``P <pid>``). Where the runner is
told no pid at all (the Python fork server with a cgroup: the zygote forks it), it is the
process of the run's cgroup whose parent is the zygote. (Not "whose parent is outside the
cgroup": an orphan the run double-forked is re-parented to the agent, and a review made the
watch sample such a sleeping decoy while the real main process stayed stopped for 15 s.)
"""

from __future__ import annotations

from sandboxes.runner.cpu_meter import stat_fields

STOPPED_LIMIT_S = 0.5
CHECK_AFTER_S = 0.2
_MAX_STEP_S = 0.1  # one sample never counts for more than this (a late poll, a loaded host)


def _state_ppid(pid: int) -> tuple[bytes, int] | None:
    rest = stat_fields(pid)
    if rest is None:
        return None
    try:
        return rest[0], int(rest[1])
    except (IndexError, ValueError):
        return None


class StopWatch:
    def __init__(self, start: float, pid: int | None, cgroup=None, report: bytearray | None = None,
                 parent: int | None = None):
        """``report``: the run's report bytes as they arrive, when the pid is the shim's;
        ``parent``: the pid of the process that forked the main process (the zygote)."""
        self.start, self.pid, self.cgroup, self.report = start, pid, cgroup, report
        self.parent = parent
        self.stopped_s = 0.0
        self._last: float | None = None

    def _main_pid(self) -> int | None:
        if self.pid is not None:
            return self.pid
        if self.report is not None:
            for line in bytes(self.report).splitlines():
                if line.startswith(b"P "):
                    try:
                        self.pid = int(line[2:])
                    except ValueError:
                        return None
                    return self.pid
            return None
        if self.cgroup is None:
            return None
        try:
            pids = set(self.cgroup.pids())
        except OSError:
            return None
        if self.parent is None:
            return None
        for pid in pids:
            info = _state_ppid(pid)
            if info is not None and info[1] == self.parent:
                self.pid = pid  # the main process keeps its pid for the run's whole life
                return pid
        return None

    def stopped(self, now: float) -> bool:
        """Has the main process been stopped for STOPPED_LIMIT_S in all, as of ``now``?"""
        if now - self.start < CHECK_AFTER_S:
            return False
        last, self._last = self._last, now
        pid = self._main_pid()
        if pid is None or last is None:
            return False
        info = _state_ppid(pid)
        if info is not None and info[0] in (b"T", b"t"):
            self.stopped_s += min(now - last, _MAX_STEP_S)
        return self.stopped_s >= STOPPED_LIMIT_S
