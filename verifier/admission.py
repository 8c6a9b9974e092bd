"""Admission control: a bounded number of submissions judged at once, a bounded queue behind.

Why bounded: under RL load the offered rate can exceed what the sandboxes do; an unbounded
queue turns that into ever-growing latency and memory, then timeouts for everyone. Here a
request that cannot even wait in line is refused at once with 429 + Retry-After, which the
client honours (backpressure reaches the generator instead of piling up in the service).

A batch request takes as many units as it has submissions, all or nothing.
"""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager

from verifier.errors import Overloaded, TooLarge


class Admission:
    def __init__(self, max_inflight: int, queue_size: int, retry_after_s: int = 1):
        self.max_inflight = max_inflight
        self.queue_size = queue_size
        self.retry_after_s = retry_after_s
        self._slots = asyncio.Semaphore(max_inflight)
        self.admitted = 0  # units admitted and not yet finished (waiting + running)
        self.running = 0
        self.rejected = 0

    @property
    def capacity(self) -> int:
        return self.max_inflight + self.queue_size

    @property
    def waiting(self) -> int:
        return self.admitted - self.running

    def reserve(self, units: int = 1) -> "Ticket":
        """Take ``units`` places in line now or raise Overloaded (never waits)."""
        if units > self.capacity:
            raise TooLarge(f"a request of {units} submissions exceeds the service's capacity "
                           f"({self.capacity} = max_inflight + queue_size); split it")
        if self.admitted + units > self.capacity:
            self.rejected += 1
            raise Overloaded(f"queue full ({self.admitted} submissions admitted, capacity "
                             f"{self.capacity}); retry later", self.retry_after_s)
        self.admitted += units
        return Ticket(self, units)


class Ticket:
    """Places in line; each ``slot()`` use waits for a judging slot. Release when done."""

    def __init__(self, admission: Admission, units: int):
        self.admission = admission
        self.left = units

    @asynccontextmanager
    async def slot(self):
        adm = self.admission
        await adm._slots.acquire()
        adm.running += 1
        try:
            yield
        finally:
            adm.running -= 1
            adm._slots.release()
            self._done(1)

    def _done(self, n: int) -> None:
        n = min(n, self.left)
        self.left -= n
        self.admission.admitted -= n

    def release(self) -> None:
        """Give back places not used (a cancelled or failed request)."""
        self._done(self.left)

    def __enter__(self) -> "Ticket":
        return self

    def __exit__(self, *exc) -> None:
        self.release()
