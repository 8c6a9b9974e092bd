"""A small persistent pool of sympy worker processes with per-call timeouts.

Why processes and not SIGALRM: the verifier calls ``judge`` from executor threads, where
signals cannot interrupt work, and sympy holds the GIL in long C-level integer loops. A
worker that runs past its timeout is killed and a replacement is started at once (it
imports sympy in the background, about 0.5 s of CPU at the workers' low priority), so the
pool stays usable. ``nice``/``idle``: each worker lowers its own task priority before its
imports (replacements too) and leads its own session, whose weight the pool lowers once an
answer has run ``demote_after_s`` (``priority``, ``_session_weight``); where the host allows
it, such a worker also moves into a cgroup marked ``cpu.idle``, the only setting that makes
the scheduler preempt it at once for any other group's task (``idle_group``).

Workers are plain subprocesses speaking JSON lines (not ``multiprocessing``), so nothing
re-imports the caller's ``__main__`` and any thread may use the pool.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import select
import subprocess
import sys
import threading
import time
from pathlib import Path

from verifier.math.idle_group import IdleGroup
from verifier.math.priority import set_session_nice

_REPO_ROOT = str(Path(__file__).resolve().parents[2])
log = logging.getLogger(__name__)
# A held answer's budget grows by the held time, up to this many times the budget
# (``_wait_in_background``); callers' own backstops must allow for it.
MAX_STRETCH = 4.0


class PoolTimeout(Exception):
    """The request ran past its timeout; the worker was killed and replaced."""


class WorkerFailed(Exception):
    """The worker died or could not start: an internal failure, not a verdict."""


class _Worker:
    def __init__(self, memory_mb: int, nice: int = 0, idle: bool = False):
        env = dict(os.environ)
        env["PYTHONPATH"] = _REPO_ROOT + os.pathsep + env.get("PYTHONPATH", "")
        argv = [sys.executable, "-m", "verifier.math.worker", "--memory-mb", str(memory_mb)]
        if nice > 0:
            argv += ["--nice", str(nice)]
        if idle:
            argv += ["--sched-idle"]
        # Below the service's priority, so an answer that runs to its timeout takes CPU from
        # request handling and sandbox runs as little as possible. A lowered worker leads its
        # own session: with autogroup the scheduler weighs sessions first, and in the
        # service's session its CPU would count against the service (see ``priority``).
        # The worker lowers itself before importing sympy.
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, close_fds=True,
            start_new_session=nice > 0 or idle,
        )
        self._buf = b""
        self.ready = False
        self.priority: dict | None = None  # as the worker reported it in its greeting
        # its session's autogroup weight: True low, False normal, None not adjustable here
        self.session_low: bool | None = None
        self.in_idle_group = False  # in the pool's cpu.idle group (``idle_group``)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def readline(self, deadline: float) -> bytes | None:
        """One line from the worker, None on deadline; raises WorkerFailed on EOF."""
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([fd], [], [], left)
            if not r:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise WorkerFailed(f"worker exited (code {self.proc.poll()})")
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line

    def wait_ready(self, timeout_s: float) -> None:
        if self.ready:
            return
        line = self.readline(time.monotonic() + timeout_s)
        if line is None:
            raise WorkerFailed(f"worker did not start within {timeout_s} s")
        hello = json.loads(line)
        if hello.get("ready") is not True:
            raise WorkerFailed(f"unexpected worker greeting {line[:100]!r}")
        self.priority = hello.get("priority")
        if self.priority and self.priority.get("own_session") \
                and self.priority.get("autogroup_nice") is not None:
            self.session_low = False  # a new session starts at the normal weight
        self.ready = True

    def send(self, obj: dict) -> None:
        try:
            self.proc.stdin.write(json.dumps(obj).encode() + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise WorkerFailed(f"worker pipe closed: {exc}") from exc

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass


class WorkerPool:
    """``size`` workers, started lazily; ``call`` blocks while all are busy."""

    def __init__(self, size: int = 2, memory_mb: int = 1024, start_timeout_s: float = 60.0,
                 acquire_timeout_s: float = 300.0, nice: int = 0, idle: bool = False,
                 demote_after_s: float = 0.25, idle_group: bool = True,
                 max_stretch: float = MAX_STRETCH, max_wall_s: float | None = None):
        if size < 1:
            raise ValueError(f"pool size must be >= 1, got {size}")
        self.memory_mb = memory_mb
        self.nice, self.idle = nice, idle
        self.demote_after_s = demote_after_s
        self.start_timeout_s = start_timeout_s
        self.acquire_timeout_s = acquire_timeout_s
        # FIFO: a replacement that is still importing sympy goes to the back of the line
        self._free: queue.Queue[_Worker | None] = queue.Queue()
        for _ in range(size):
            self._free.put(None)
        self._lock = threading.Lock()
        self._workers: set[_Worker] = set()
        self._closed = False
        # the cpu.idle group for lowered workers; made with the first worker (None: not here)
        self._want_group = idle_group and (nice > 0 or idle)
        self.idle_group: IdleGroup | None = None
        self.idle_group_reason = "" if self._want_group else "workers run at normal priority"
        # a slow answer's budget grows by the time the idle group was held (foreground
        # traffic), up to max_stretch x the budget; past that it runs outside the group
        self.max_stretch = max_stretch
        self.max_wall_s = max_wall_s  # the stretch ends where budget + stretch would pass it
        self._hold_wanted = False
        self.kills = 0  # workers killed for timeouts (for tests and metrics)
        self.started = 0  # worker processes started, replacements included

    def _spawn(self, background: bool = False) -> _Worker:
        """A new worker; ``background``: nobody waits on it yet, so it imports sympy in the
        idle group (a replacement after a timeout) until a request takes it."""
        with self._lock:
            if self._closed:
                raise WorkerFailed("pool is shut down")
            if self._want_group:
                self._want_group = False
                self.idle_group = IdleGroup.create()
                if self.idle_group is not None and self._hold_wanted:
                    self.idle_group.hold(True)
                if self.idle_group is None:
                    self.idle_group_reason = IdleGroup.reason
                    log.warning("math workers: no cpu.idle group (%s); slow answers are "
                                "lowered by nice and autogroup weight only", IdleGroup.reason)
            w = _Worker(self.memory_mb, self.nice, self.idle)
            self._workers.add(w)
            self.started += 1
        if background:
            self._idle_group(w, True)
        return w

    def _discard(self, w: _Worker) -> None:
        self._idle_group(w, False)  # a held group would delay the kill until it runs again
        w.kill()
        with self._lock:
            self._workers.discard(w)

    def call(self, request: dict, timeout_s: float) -> dict:
        """Send one request; raises PoolTimeout or WorkerFailed."""
        try:
            w = self._free.get(timeout=self.acquire_timeout_s)
        except queue.Empty as exc:
            raise WorkerFailed(f"no free worker within {self.acquire_timeout_s} s") from exc
        try:
            if w is None or not w.alive():
                if w is not None:
                    self._discard(w)
                w = None
                w = self._spawn()
            self._idle_group(w, False)  # a request waits on it now
            w.wait_ready(self.start_timeout_s)
            self._session_weight(w, low=False)
            # the worker's own CPU-time backstop, in case this process dies mid-call
            w.send(dict(request, cpu_budget_s=timeout_s))
            deadline = time.monotonic() + timeout_s
            line = w.readline(min(deadline, time.monotonic() + self.demote_after_s))
            if line is None:  # a slow answer: from now on it only gets spare CPU
                self._session_weight(w, low=True)
                line = self._wait_in_background(w, deadline, timeout_s)
            if line is None:
                self._discard(w)
                self.kills += 1
                w = None
                w = self._spawn(background=True)  # warm replacement, imports while we return
                raise PoolTimeout(f"no result within {timeout_s} s")
            return json.loads(line)
        except WorkerFailed:
            if w is not None:
                self._discard(w)
            w = None
            raise
        finally:
            self._free.put(w)

    def _session_weight(self, w: _Worker, low: bool) -> None:
        """Weigh the worker's session (autogroup) as a normal one or lower it (``nice``).

        The session is what the scheduler shares CPU by first (``priority``). A worker
        starts at the normal weight; each request starts at the normal one, so an ordinary
        answer (well under ``demote_after_s``) is judged as fast as before, and only an
        answer still running after ``demote_after_s`` drops to the low weight for the rest
        of its budget: a flood of answers held to their timeout takes little CPU from
        request handling and sandbox runs, normal math judging keeps its latency under
        other load. Task nice / SCHED_IDLE stay low throughout (they order the workers
        where there is no autogroup)."""
        self._idle_group(w, low)
        if not (self.nice > 0 or self.idle) or w.session_low is None or w.session_low == low:
            return
        level = (19 if self.idle else self.nice) if low else 0
        w.session_low = low if set_session_nice(w.proc.pid, level) else None

    def _wait_in_background(self, w: _Worker, deadline: float, timeout_s: float) -> bytes | None:
        """The answer's line, or None at its deadline, plus the time the idle group was held
        meanwhile (up to ``max_stretch`` x the budget): a held answer keeps its budget."""
        g = self.idle_group
        if g is None or not w.in_idle_group:
            return w.readline(deadline)
        held_at_start, cap = g.held_total(), self.max_stretch * timeout_s
        if self.max_wall_s is not None:  # e.g. the request's deadline: no use judging past it
            cap = min(cap, max(0.0, self.max_wall_s - timeout_s))
        while True:
            stretch = min(cap, g.held_total() - held_at_start)
            end, now = deadline + stretch, time.monotonic()
            if now >= end:
                return None
            if stretch >= cap:  # held as long as it may be: it ends its budget unheld
                self._idle_group(w, False)
                return w.readline(end)
            line = w.readline(min(end, now + 0.1))  # re-read the held time every 0.1 s
            if line is not None:
                return line

    def hold_background(self, on: bool) -> None:
        """Hold (on) or release the idle group: called when foreground traffic starts/stops."""
        self._hold_wanted = on
        if self.idle_group is not None:
            self.idle_group.hold(on)

    def hold_report(self) -> dict:
        """For /readyz: whether slow answers have an idle group, whether it is held now and
        for how long it has been held in all (seconds), or why there is no group."""
        g = self.idle_group
        if g is None:
            return {"idle_group": False, "reason": self.idle_group_reason or "not made yet"}
        with self._lock:
            in_group = sum(1 for w in self._workers if w.in_idle_group)
        return {"idle_group": True, "held": g.held, "held_s": round(g.held_total(), 3),
                "workers_in_group": in_group}

    def _idle_group(self, w: _Worker, idle: bool) -> None:
        """Move ``w`` into the cpu.idle group or back to the service's group (see module doc)."""
        g = self.idle_group
        if g is None or w.in_idle_group == idle:
            return
        if (g.enter if idle else g.leave)(w.proc.pid):
            w.in_idle_group = idle

    def warm_up(self) -> None:
        """Start every worker now instead of on first use."""
        taken = []
        try:
            for _ in range(self._free.qsize()):
                w = self._free.get_nowait()
                if w is None:
                    w = self._spawn()
                taken.append(w)
            for w in taken:
                w.wait_ready(self.start_timeout_s)
        finally:
            for w in taken:
                self._free.put(w)

    def priorities(self) -> list[dict]:
        """What each started worker reported about its CPU priority (``priority.read``)."""
        with self._lock:
            return [dict(w.priority, pid=w.proc.pid) for w in self._workers if w.priority]

    def shutdown(self) -> None:
        with self._lock:
            self._closed = True
            workers = list(self._workers)
            self._workers.clear()
        if self.idle_group is not None:
            self.idle_group.hold(False)  # a held worker would die only when it runs again
        for w in workers:
            w.kill()
        if self.idle_group is not None:
            self.idle_group.remove()
