"""CPU time of a run's whole process tree, read while it runs (stdlib only).

Two meters with one interface (``cpu_s()``, ``label``):

- ``CgroupMeter``: the run's cgroup counter (``cpuacct.usage`` / ``cpu.stat``): exact, and
  it includes every child, waited for or not, alive or dead.
- ``TreeMeter``: where no cgroup can be made (AWS Lambda, unprivileged containers): a
  scan of ``/proc`` for the run's processes (its session, plus every process of the run
  uid when there is one), summing user+system time of the live ones and of the children
  they reaped (cutime/cstime). A process that vanished while its parent was outside the
  run (an orphan reaped by the agent or by init) keeps the figure last seen, so at most
  one poll interval of each such orphan's CPU goes uncounted. The total never decreases.

Both also answer ``active_s()``: the time the run's live threads have spent running or
waiting on a run queue (``/proc/<pid>/task/<tid>/schedstat``) and whether one is runnable
now, which the idleness limit asks before it calls a run idle: on a loaded machine a run
can wait for a core far longer than it runs, and that is not idleness (watch.IdleWatch).
"""

from __future__ import annotations

import os

_CLK_TCK = os.sysconf("SC_CLK_TCK")


# Whether this kernel keeps per-thread scheduler statistics (CONFIG_SCHED_INFO).
HAVE_SCHEDSTAT = os.path.exists("/proc/self/schedstat")


def active_s(pids) -> tuple[float, bool] | None:
    """(seconds the live threads of ``pids`` spent on a CPU or waiting on a run queue, whether
    one of them is runnable now); None when no thread could be read. schedstat's wait is
    added only when a thread gets the CPU, so a thread that has waited all along shows only
    as runnable ('R' in its stat)."""
    total, runnable, seen = 0, False, False
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as f:
                    fields = f.read().split()
                total += int(fields[0]) + int(fields[1])
                seen = True
            except (OSError, ValueError, IndexError):
                continue
            rest = stat_fields(f"{pid}/task/{tid}")
            runnable = runnable or (rest is not None and rest[0] == b"R")
    return (total / 1e9, runnable) if seen else None


def cpus_idle_s(cpus) -> float | None:
    """Seconds the CPUs ``cpus`` have spent idle (idle + iowait in /proc/stat), summed;
    None when /proc/stat cannot be read."""
    want = {f"cpu{c}" for c in cpus}
    total = 0
    try:
        with open("/proc/stat", "rb") as f:
            for line in f:
                if not line.startswith(b"cpu"):
                    break
                fields = line.split()
                if fields[0].decode() in want:
                    total += int(fields[4]) + int(fields[5])
    except (OSError, ValueError, IndexError):
        return None
    return total / _CLK_TCK


class CgroupMeter:
    label = "cgroup"

    def __init__(self, cgroup):
        self._cg = cgroup

    def cpu_s(self) -> float:
        return self._cg.cpu_s()

    def active_s(self) -> tuple[float, bool] | None:
        return active_s(self._cg.pids())

    min_poll_s = 0.002


def stat_fields(pid) -> list[bytes] | None:
    """The fields of /proc/<pid>/stat after the command name (state, ppid, ...), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    return data[data.rfind(b")") + 2:].split() or None


def _stat(pid: str) -> tuple[int, int, float] | None:
    """(ppid, session, CPU s incl. reaped children) of a live, non-zombie process."""
    rest = stat_fields(pid)
    if rest is None or rest[0] == b"Z":  # its time is in the parent's cutime once reaped, or we keep the last seen
        return None
    # after the comm: state ppid pgrp session ... utime(11) stime(12) cutime(13) cstime(14)
    ticks = int(rest[11]) + int(rest[12]) + int(rest[13]) + int(rest[14])
    return int(rest[1]), int(rest[3]), ticks / _CLK_TCK


class TreeMeter:
    label = "proc-scan"
    min_poll_s = 0.01

    def __init__(self, session: int, uid: int | None):
        self.session, self.uid = session, uid
        self._last: dict[int, tuple[int, float]] = {}  # pid -> (ppid, cpu) at the last scan
        self._gone = 0.0
        self._best = 0.0

    def _members(self) -> dict[int, tuple[int, float]]:
        live = {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            st = _stat(name)
            if st is None:
                continue
            ppid, sid, cpu = st
            if sid != self.session:
                if self.uid is None:
                    continue
                try:
                    if os.stat(f"/proc/{name}").st_uid != self.uid:
                        continue
                except OSError:
                    continue
            live[int(name)] = (ppid, cpu)
        return live

    def active_s(self) -> tuple[float, bool] | None:
        return active_s(self._members())

    def cpu_s(self) -> float:
        live = self._members()
        for pid, (ppid, cpu) in self._last.items():
            if pid not in live and ppid not in self._last:
                self._gone += cpu  # reaped outside the run: its time would vanish
        self._last = live
        self._best = max(self._best, self._gone + sum(cpu for _, cpu in live.values()))
        return self._best
