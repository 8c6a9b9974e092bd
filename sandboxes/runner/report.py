"""What a run's outcome says: exit status, CPU time, peak memory (stdlib only).

Sources, best first: the run's cgroup counters (every process of the run, waited for or
not); the spawner's ``R`` line (the program's own wait status and rusage, measured by a
small static parent, so its peak RSS is the program's); our own ``wait4`` of the child
(fork mode: minus the RSS the child inherited from us). ``E`` lines are setup failures:
the program never ran (an internal error, never a verdict).
"""

from __future__ import annotations

import os


def finish(res, report: bytes, *, status: int | None, ru, via: str, base_kb: int,
           tree_cpu: float, cgroup) -> None:
    """Fill ``res`` (a process.Outcome) in place."""
    final = None
    for line in bytes(report).decode(errors="replace").splitlines():
        if line.startswith("E "):
            res.setup_error = line[2:]
        elif line.startswith("R "):
            final = line.split()
    if final is not None:  # the shim/server saw the program end: its own status and rusage
        status = int(final[1])
        res.cpu_time_s = (int(final[2]) + int(final[3])) / 1e6
        res.memory_kb = int(final[4])
    elif status is None:  # the server never reported the end (it died): no outcome to give
        res.setup_error = res.setup_error or "spawn server ended without reporting the program's end"
        return
    else:
        res.cpu_time_s = ru.ru_utime + ru.ru_stime
        res.memory_kb = ru.ru_maxrss if via == "shim" else max(ru.ru_maxrss - base_kb, 0)
    if cgroup is not None:
        res.cpu_time_s = cgroup.cpu_s()  # every process of the run, waited for or not
        res.memory_kb = max(cgroup.memory_peak_kb(), 0)
        res.oom_killed = cgroup.oom_killed()
        res.in_cgroup = True
    else:
        res.cpu_time_s = max(res.cpu_time_s, tree_cpu)
    if os.WIFSIGNALED(status):
        res.signal = os.WTERMSIG(status)
    else:
        res.exit_code = os.WEXITSTATUS(status)
