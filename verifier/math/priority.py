"""CPU priority of a sympy worker, applied by the worker to itself before it imports sympy.

Why more than ``nice``: on Linux with autogroup (``/proc/sys/kernel/sched_autogroup_enabled``,
the default of most distribution kernels) the scheduler first shares the CPU between
*sessions*, each weighing as much as a nice-0 task, and only then between the tasks of a
session by their nice values. Measured on the 2-core dev host: workers at nice 10 (or
SCHED_IDLE) in the service's own session still took a full session's share, and the
service's event loop, charged for its workers' CPU, waited behind sandbox runs and other
sessions (code ``/v1/verify`` p50 12 -> 27 ms, p99 up to 8x, under a flood of answers that
each hold a worker to its timeout). So a worker starts its own session (the pool spawns it
with ``start_new_session``), and the pool sets that session's weight per request
(``/proc/<pid>/autogroup``): normal when a request starts, lowered once the answer has run
for ``demote_after_s``, so ordinary answers keep their latency and only answers held to
their timeout give way.

Task nice and SCHED_IDLE are set by the worker itself, first thing: ``setpriority`` and
``sched_setscheduler`` act on one thread on Linux, so a parent setting them after ``Popen``
races the child's start-up (the sympy import ran at full priority until then) and misses
threads the child has made.
Where the host has no autogroup (a container's own cpu cgroup, a kernel without it) the
session changes nothing and nice / SCHED_IDLE order the workers below the service.
"""

from __future__ import annotations

import os
import time

_AUTOGROUP = "/proc/self/autogroup"


def lower(nice: int, sched_idle: bool) -> dict:
    """Lower this process (call before it starts threads) and return ``read()``.

    The session's weight is left normal here: a start-up (0.5 s of imports) at the low
    weight took over a minute at load 16 on the dev host, past the pool's start timeout,
    which would have made answers IE. The pool lowers it per request (``set_session_nice``)."""
    if nice > 0:
        os.setpriority(os.PRIO_PROCESS, 0, min(nice, 19))
    if sched_idle:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    return read()


def set_session_nice(pid: int, nice: int) -> bool:
    """Set the autogroup nice of ``pid``'s session (0: this process); False where it cannot.

    Any process may move its autogroup nice between 0 and 19 (only below 0 needs
    privilege), but without CAP_SYS_ADMIN the kernel takes at most ten changes a second
    (EAGAIN), hence the short retry."""
    path = _AUTOGROUP if pid == 0 else f"/proc/{pid}/autogroup"
    for _ in range(20):
        try:
            with open(path, "w") as f:
                f.write(str(nice))
            return True
        except FileNotFoundError:  # kernel without autogroup: the session weight is moot
            return False
        except OSError as exc:
            if exc.errno != 11:  # EAGAIN
                return False  # reported by read(): autogroup nice stays what it was
            time.sleep(0.02)
    return False


def read(pid: int = 0) -> dict:
    """This process's priority as the scheduler sees it.

    ``own_session``: leads its own session (so its own autogroup). ``autogroup_nice``:
    that autogroup's nice, None where the kernel has none (or autogroup is disabled,
    when it does not weigh anything)."""
    pid = pid or os.getpid()
    return {"nice": os.getpriority(os.PRIO_PROCESS, pid),
            "sched_idle": os.sched_getscheduler(pid) == os.SCHED_IDLE,
            "own_session": os.getsid(pid) == pid,
            "autogroup_nice": autogroup_nice(pid)}


def autogroup_nice(pid: int = 0) -> int | None:
    try:
        with open(f"/proc/{pid or 'self'}/autogroup") as f:
            text = f.read().split()  # "/autogroup-123 nice 10"
        with open("/proc/sys/kernel/sched_autogroup_enabled") as f:
            if f.read().strip() != "1":
                return None
    except OSError:
        return None
    return int(text[-1]) if len(text) >= 3 and text[-2] == "nice" else None
