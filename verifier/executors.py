"""Bounded thread pools, one per work class, so one slow class cannot stall the others.

Why not asyncio's default executor: on main the math judge, store reads and output checks
all went through ``asyncio.to_thread`` (6 threads on 2 cores). Eight math answers that hang
held every thread, and ``GET /v1/problems/ID`` went from 9 ms to 11.7 s. Each class here has
its own threads and its own bounded queue: when that queue is full the call is refused at once
with ``ClassSaturated`` (503 + Retry-After), naming the class, and nothing else waits.

A call that has started cannot be interrupted (Python threads cannot be killed); callers that
need a hard stop put the work in a process (the math judge's sympy workers are killed at their
timeout). The executor counts a thread as busy until its call really returns, so an abandoned
call still occupies its place and the bound stays true.

``stalled``: every thread busy on a call older than ``stall_after_s`` (a hung store, say).
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from verifier.errors import Overloaded


class ClassSaturated(Overloaded):
    """A work class's queue is full: the service is busy with that kind of work, retry later."""

    status, code = 503, "saturated"


class BoundedExecutor:
    def __init__(self, name: str, threads: int, queue_size: int, *, retry_after_s: int = 1,
                 stall_after_s: float = 10.0):
        if threads < 1:
            raise ValueError(f"{name}: threads must be >= 1, got {threads}")
        self.name, self.threads, self.queue_size = name, threads, queue_size
        self.retry_after_s = retry_after_s
        self.stall_after_s = stall_after_s
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix=f"verifier-{name}")
        self._lock = threading.Lock()
        self._ids = itertools.count()
        self._started: dict[int, float] = {}  # call id -> monotonic start, while running
        self.pending = 0  # submitted and not finished (queued + running)
        self.rejected = 0
        self.completed = 0

    @property
    def capacity(self) -> int:
        return self.threads + self.queue_size

    @property
    def busy(self) -> int:
        with self._lock:
            return len(self._started)

    @property
    def queued(self) -> int:
        with self._lock:
            return self.pending - len(self._started)

    def oldest_running_s(self) -> float:
        with self._lock:
            if not self._started:
                return 0.0
            return time.monotonic() - min(self._started.values())

    @property
    def stalled(self) -> bool:
        return self.busy >= self.threads and self.oldest_running_s() > self.stall_after_s

    @property
    def full(self) -> bool:
        return self.pending >= self.capacity

    @property
    def saturated(self) -> bool:
        return self.full or self.stalled

    def report(self) -> dict:
        return {"threads": self.threads, "busy": self.busy, "queued": self.queued,
                "capacity": self.capacity, "rejected": self.rejected,
                "oldest_running_s": round(self.oldest_running_s(), 3), "stalled": self.stalled,
                "saturated": self.saturated}

    def _call(self, cid: int, fn, args):
        with self._lock:
            self._started[cid] = time.monotonic()
        try:
            return fn(*args)
        finally:
            with self._lock:
                self._started.pop(cid, None)

    def _finished(self, _future) -> None:
        with self._lock:
            self.pending -= 1
            self.completed += 1

    async def run(self, fn, *args):
        """Run ``fn(*args)`` on this class's threads; ClassSaturated at once when full."""
        with self._lock:
            if self.pending >= self.capacity:
                self.rejected += 1
                raise ClassSaturated(
                    f"the {self.name} work class is saturated ({self.pending} calls in progress "
                    f"or queued, capacity {self.capacity}); retry later", self.retry_after_s)
            self.pending += 1
        try:
            cf = self._pool.submit(self._call, next(self._ids), fn, args)
        except RuntimeError:  # shut down
            self._finished(None)
            raise
        cf.add_done_callback(self._finished)
        return await asyncio.wrap_future(cf)

    def shutdown(self) -> None:
        """Stop taking work; queued calls are cancelled, running ones finish on their own."""
        self._pool.shutdown(wait=False, cancel_futures=True)
