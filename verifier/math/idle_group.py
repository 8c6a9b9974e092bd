"""A CPU cgroup marked ``cpu.idle`` for math answers that run long, where the host allows one.

Why a cgroup and not SCHED_IDLE or nice alone: the scheduler compares *groups* before tasks.
Each sympy worker leads its own session, so with autogroup it sits in a group of its own,
and so does every sandbox run (each ``setsid()``s). Between two groups a task's SCHED_IDLE
policy does not count, only the groups' weights and the EEVDF deadlines: a sandbox run
that wakes up while a lowered worker holds the CPU waits for that worker's slice or the next
tick (4 ms at HZ 250). Measured with sched tracepoints on this 2-core host
(BENCHMARKS.md, math flood): two SCHED_IDLE workers in sessions of autogroup nice 19
raise the p99 wake-up delay of everything else from 1.8 to 2.9 ms (max 8 ms) and code
``/v1/verify`` p99 by about 2x. A group with ``cpu.idle = 1`` is idle *as a group*: any
non-idle group preempts it at once, so the same two workers leave the p99 wake-up delay
at 0.4 ms and code p99 within the unloaded figures.

The group is ``oubliette-math-<pid>`` next to where the service sits in the ``cpu``
hierarchy (v1, or v2 where the ``cpu`` controller can be enabled for our children). The
pool moves a worker into it once its answer has run ``demote_after_s`` and a replacement
worker while it starts with nobody waiting on it, and back to the service's own group when
a request needs it (``leave``). Where no such group can be made (not root, a read-only
``/sys/fs/cgroup`` in a container, a kernel without ``cpu.idle``) ``create`` returns None
with ``reason`` and the pool keeps to task nice and autogroup weight (``priority``).
"""

from __future__ import annotations

import errno
import logging
import os
import threading
import time

log = logging.getLogger(__name__)
PREFIX = "oubliette-math-"
# While held the group gets HELD_QUOTA_US of CPU per PERIOD_US: 0.1 %, in effect paused
# (the smallest quota the kernel takes is 1 ms; the longest period 1 s).
PERIOD_US, HELD_QUOTA_US = 1_000_000, 1_000


def _write(path: str, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


class IdleGroup:
    reason = ""

    def __init__(self, path: str, home: str, version: int = 1):
        self.path = path  # the idle group
        self.home = home  # the group the service (and a worker serving a request) sits in
        self.version = version
        self._lock = threading.Lock()
        self._held = False
        self._held_since = 0.0
        self._held_total = 0.0

    @classmethod
    def create(cls, parent: str | None = None) -> "IdleGroup | None":
        """The idle group below ``parent`` (default: this process's own ``cpu`` group)."""
        from sandboxes.backends.cgroup_host import own_dir

        cls.reason = ""
        version = 1
        if parent is None:
            try:
                found = own_dir("cpu")
            except OSError as exc:
                found, cls.reason = None, f"cannot read /proc/self/cgroup or mountinfo: {exc}"
            if found is None:
                cls.reason = cls.reason or "no cpu cgroup hierarchy mounted"
                return None
            version, parent = found
        if not os.path.exists(os.path.join(parent, "cpu.idle")) and version == 1:
            cls.reason = f"{parent}: the kernel has no cpu.idle (Linux 5.15+)"
            return None
        _sweep(parent)
        path = os.path.join(parent, f"{PREFIX}{os.getpid()}")
        try:
            if version == 2:
                _write(os.path.join(parent, "cgroup.subtree_control"), "+cpu")
            os.makedirs(path, 0o755, exist_ok=True)
            _write(os.path.join(path, "cpu.idle"), "1")
            if version == 1:
                _write(os.path.join(path, "cpu.cfs_period_us"), str(PERIOD_US))
        except OSError as exc:
            cls.reason = f"cannot make an idle cpu group under {parent}: {exc.strerror or exc}"
            try:
                os.rmdir(path)
            except OSError:
                pass
            return None
        return cls(path, parent, version)

    def hold(self, on: bool) -> None:
        """Throttle the group to ``HELD_QUOTA_US`` per second (on) or lift that (off).
        The time held is summed (``held_total``) so answers can be given it back."""
        with self._lock:
            if on == self._held:
                return
            if self.version == 1:
                name, value = "cpu.cfs_quota_us", str(HELD_QUOTA_US) if on else "-1"
            else:
                name, value = "cpu.max", f"{HELD_QUOTA_US if on else 'max'} {PERIOD_US}"
            try:
                _write(os.path.join(self.path, name), value)
            except OSError as exc:
                log.warning("cannot %s %s: %s", "hold" if on else "release", self.path, exc)
                return
            now = time.monotonic()
            if on:
                self._held_since = now
            else:
                self._held_total += now - self._held_since
            self._held = on

    @property
    def held(self) -> bool:
        return self._held

    def held_total(self) -> float:
        """Seconds the group has been held since it was made (running sum)."""
        with self._lock:
            return self._held_total + (time.monotonic() - self._held_since if self._held else 0.0)

    def enter(self, pid: int) -> bool:
        return self._move(self.path, pid)

    def leave(self, pid: int) -> bool:
        return self._move(self.home, pid)

    def _move(self, group: str, pid: int) -> bool:
        """Move every thread of ``pid``; False if it is gone or the write fails (logged)."""
        try:
            _write(os.path.join(group, "cgroup.procs"), str(pid))
            return True
        except OSError as exc:
            if exc.errno != errno.ESRCH:  # a worker that just died needs no group
                log.warning("math worker %d: cannot move to %s: %s", pid, group, exc)
            return False

    def members(self) -> list[int]:
        try:
            with open(os.path.join(self.path, "cgroup.procs")) as f:
                return [int(x) for x in f.read().split()]
        except OSError:
            return []

    def remove(self) -> None:
        """Move whatever is left back home and remove the group (the pool's shutdown)."""
        self.hold(False)
        for pid in self.members():
            self.leave(pid)
        try:
            os.rmdir(self.path)
        except OSError as exc:
            log.warning("cannot remove %s: %s", self.path, exc)


def _sweep(parent: str) -> None:
    """Remove idle groups left by services that died without their shutdown (SIGKILL):
    their owner pid is gone. Processes still inside (orphaned workers, which stop at their
    CPU-time backstop) go back to the parent first."""
    try:
        names = [n for n in os.listdir(parent) if n.startswith(PREFIX)]
    except OSError:
        return
    for name in names:
        pid = name[len(PREFIX):]
        if not pid.isdigit() or os.path.exists(f"/proc/{pid}") or int(pid) == os.getpid():
            continue
        stale = IdleGroup(os.path.join(parent, name), parent)
        stale.remove()
