"""Machine time per test by process role, read from /proc before and after a measured stretch.

Used by bench/judge_vs_bare.py (``--cpu-split``): where a judged test's CPU goes, as a
command instead of a profiler session. Roles, by command line:
- ``service``: ``verifier serve`` (its own CPU; the HTTP loop, the backend's loop, checkers);
- ``agents``: the runner agents (``sandboxes.runner.agent``, local slots or containers);
- ``sandboxed``: what the agents start: zygotes and the tests forked from them, spawn shims,
  compilers, exec'd programs (children's CPU is counted once they are reaped: the zygote
  reaps its tests, an agent reaps a zygote it replaced);
- ``runtime``: dockerd, containerd and their shims (the docker backend);
- ``client``: this process (the HTTP client; for bare, its worker threads) and ``bare``: the
  programs it ran itself (its reaped children);
- ``other``: the rest of the machine's busy time (kernel threads, unrelated processes), and
  ``idle``.
A process that exits inside the stretch has its whole CPU added to its parent's children
total; what it had used before the stretch is taken off again here, so nothing is counted
twice. Figures are per test: CPU seconds / tests * 1000 = ms.
"""

from __future__ import annotations

import os

HZ = os.sysconf("SC_CLK_TCK")
ROLES = ("service", "agents", "sandboxed", "runtime", "client", "bare", "other", "idle")


def _role(cmdline: str, pid: int) -> str | None:
    if pid == os.getpid():
        return "client"
    if "verifier.cli serve" in cmdline or "verifier serve" in cmdline:
        return "service"
    if "sandboxes.runner.agent" in cmdline:
        return "agents"
    if "runner/zygote.py" in cmdline or "spawn_shim" in cmdline:
        return "sandboxed"
    if any(name in cmdline for name in ("dockerd", "containerd", "docker-proxy", "runc")):
        return "runtime"
    return None


# where a role's reaped children's CPU goes
_CHILDREN_OF = {"service": "service", "agents": "sandboxed", "sandboxed": "sandboxed",
                "runtime": "runtime", "client": "bare"}


def snapshot() -> dict:
    """{"procs": {pid: (role, own ticks, reaped children ticks, ppid)}, "busy": ticks, "idle": ticks}."""
    procs = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:
            continue  # gone meanwhile
        role = _role(cmd, int(name))
        if role is None:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
        procs[int(name)] = (role, utime + stime, cutime + cstime, int(fields[1]))
    with open("/proc/stat") as f:
        ticks = [int(x) for x in f.readline().split()[1:]]
    idle = ticks[3] + ticks[4]  # idle + iowait
    return {"procs": procs, "busy": sum(ticks) - idle, "idle": idle}


def split(before: dict, after: dict) -> dict:
    """CPU seconds by role between two snapshots (see the module doc for the accounting)."""
    out = dict.fromkeys(ROLES, 0.0)
    was, now = before["procs"], after["procs"]
    for pid, (role, own, kids, _ppid) in now.items():
        own0, kids0 = was[pid][1:3] if pid in was and was[pid][0] == role else (0, 0)
        out[role] += own - own0
        out[_CHILDREN_OF[role]] += kids - kids0
    for pid, (role, own, kids, ppid) in was.items():
        if (pid not in now or now[pid][0] != role) and ppid in now:
            # exited and reaped by a process counted here: its whole total (own + its
            # children) is in the parent's children total now, its part before the stretch too
            out[_CHILDREN_OF[now[ppid][0]]] -= own + kids
    out = {k: v / HZ for k, v in out.items()}
    counted = sum(out[k] for k in ROLES if k not in ("other", "idle"))
    out["other"] = max(0.0, (after["busy"] - before["busy"]) / HZ - counted)
    out["idle"] = (after["idle"] - before["idle"]) / HZ
    return out


def per_test_ms(seconds: dict, tests: int) -> dict:
    return {k: 1000.0 * v / tests for k, v in seconds.items()} if tests else {}
