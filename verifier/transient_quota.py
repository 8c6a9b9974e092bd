"""An overall quota on the bytes /v1/execute keeps in the transient store.

Why: every /v1/execute output lives in the transient store until its TTL passes; one request
is bounded by ``max_request_output_bytes``, but without an overall bound a client repeating
requests keeps TTL x rate x that ceiling on disk. The quota admits a request only if its
worst case (inputs x output cap) fits next to the bytes still live and the reservations of
requests in flight; afterwards the reservation shrinks to what was really stored, and those
bytes count until their expiry. A request that does not fit gets 429 ``transient_full`` with
a Retry-After of when the oldest live output expires (before anything runs: nothing is lost).

Scope: the bytes this process wrote. Several service processes sharing one store each keep
their own quota (size it per process); outputs deleted early by hand still count until expiry.
"""

from __future__ import annotations

import heapq
import math
import threading
import time
from contextlib import contextmanager

from verifier.errors import Overloaded


class TransientFull(Overloaded):
    code = "transient_full"


class TransientQuota:
    def __init__(self, max_bytes: int, *, clock=time.time):
        self.max_bytes = max_bytes
        self._clock = clock
        self._lock = threading.Lock()  # commits may come from store threads
        self._live: list[tuple[float, int]] = []  # heap of (expiry epoch s, bytes)
        self._live_bytes = 0
        self._reserved = 0

    def _expire(self, now: float) -> None:
        while self._live and self._live[0][0] <= now:
            self._live_bytes -= heapq.heappop(self._live)[1]

    @property
    def used_bytes(self) -> int:
        """Live stored bytes plus reservations of requests in flight."""
        with self._lock:
            self._expire(self._clock())
            return self._live_bytes + self._reserved

    @contextmanager
    def reserve(self, nbytes: int):
        """Hold ``nbytes`` for one request; yields ``commit(size, expiry)`` for each output
        it stores. Raises TransientFull when the worst case does not fit."""
        with self._lock:
            now = self._clock()
            self._expire(now)
            free = self.max_bytes - self._live_bytes - self._reserved
            if nbytes > free:
                wait = self._live[0][0] - now if self._live else 1.0
                raise TransientFull(
                    f"transient store quota full: this request may store {nbytes} bytes of "
                    f"output, {max(free, 0)} of {self.max_bytes} are free "
                    "(transient_max_bytes); outputs expire after transient_ttl_s, or lower "
                    "limits.output_limit_kb", retry_after_s=max(1, math.ceil(wait)))
            self._reserved += nbytes
        held = [nbytes]

        def commit(size: int, expiry: float) -> None:
            with self._lock:
                take = min(size, held[0])
                held[0] -= take
                self._reserved -= take
                heapq.heappush(self._live, (expiry, size))
                self._live_bytes += size
        try:
            yield commit
        finally:
            with self._lock:
                self._reserved -= held[0]
                held[0] = 0
