"""Is the service serving anything but math right now? Background work yields while it is.

A math answer that runs long (past ``demote_after_s``) is background work: its sympy worker
sits in the cpu.idle group (``verifier.math.idle_group``). On a small machine that is not
enough to keep it from slowing everything else: a worker computing on the other core slows
a sandbox run on this one by sharing the core's caches and memory bandwidth (measured:
code ``/v1/verify`` p99 about 1.7x with the workers idle-scheduled, BENCHMARKS.md). So while
any other request is in flight, the idle group is throttled to almost nothing, and a slow
answer's budget is stretched by the time it was held (``WorkerPool``), so its verdict does
not depend on the traffic beside it.

Foreground: every request except ``/v1/math/*``, and except the part of a request spent
waiting for a math answer (a math problem judged through ``/v1/verify``), so a request never
holds back its own answer. The state turns busy at once and idle only after ``linger_s``
without foreground requests, so the gaps between one client's sequential requests do not
let the workers in between.
"""

from __future__ import annotations

import asyncio
import contextvars
from dataclasses import dataclass
from typing import Awaitable, Callable

from aiohttp import web


@dataclass
class _Request:
    math: int = 0  # math calls of this request in progress
    done: bool = False


_current: contextvars.ContextVar[_Request | None] = contextvars.ContextVar(
    "foreground_request", default=None)


class Foreground:
    def __init__(self, linger_s: float = 0.02):
        self.linger_s = linger_s
        self.count = 0  # foreground requests in flight (not waiting for math)
        self.busy = False
        self._listeners: list[Callable[[bool], None]] = []
        self._idle_timer: asyncio.TimerHandle | None = None

    def listen(self, fn: Callable[[bool], None]) -> None:
        """``fn(busy)`` on every change, from the event loop's thread."""
        self._listeners.append(fn)

    def _set(self, busy: bool) -> None:
        if busy != self.busy:
            self.busy = busy
            for fn in self._listeners:
                fn(busy)

    def _inc(self) -> None:
        self.count += 1
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None
        self._set(True)

    def _dec(self) -> None:
        self.count -= 1
        if self.count == 0:
            if self._idle_timer is not None:
                self._idle_timer.cancel()
            self._idle_timer = asyncio.get_running_loop().call_later(self.linger_s, self._idle)

    def _idle(self) -> None:
        self._idle_timer = None
        if self.count == 0:
            self._set(False)

    def middleware(self):
        @web.middleware
        async def foreground(request: web.Request, handler):
            if request.path.startswith("/v1/math/"):
                return await handler(request)
            req = _Request()
            token = _current.set(req)
            self._inc()
            try:
                return await handler(request)
            finally:
                req.done = True
                if req.math == 0:
                    self._dec()
                _current.reset(token)

        return foreground

    def wrap(self, run: Callable[..., Awaitable]) -> Callable[..., Awaitable]:
        """``run`` (the math executor's) with the calling request out of the foreground while
        it waits; concurrent math calls of one request leave and rejoin it once."""
        async def run_as_background(*args, **kwargs):
            req = _current.get()
            if req is None or req.done:
                return await run(*args, **kwargs)
            req.math += 1
            if req.math == 1:
                self._dec()
            try:
                return await run(*args, **kwargs)
            finally:
                req.math -= 1
                if req.math == 0 and not req.done:
                    self._inc()

        return run_as_background

    def close(self) -> None:
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None
