"""Admission control: bounded judging slots per work class, shared fairly between clients.

Why bounded: under RL load the offered rate can exceed what the sandboxes do; an unbounded
queue turns that into ever-growing latency and memory, then timeouts for everyone. A request
that cannot wait in line is refused at once with 429 + Retry-After, which the client honours.

Why fair: first-come-first-served let one client holding 60 requests in flight make a client
sending one request at a time wait behind all of them (22x its idle latency on main). Here
each client (``verifier.clients``) has its own line, and a freed slot goes to the next client
in weighted round-robin order (stride scheduling: each grant advances the client's pass by
1/weight; the smallest pass goes next, ties in the order the clients got that pass). A client
that goes idle keeps no credit: when it comes back its pass starts at the current virtual time.

Who gets the 429: a client over ``max_per_client`` (queued + running). When the class is full,
the arriving client is compared with the client holding the most units per weight: if that one
holds more than the newcomer would, its newest request that has not started is pushed out
(it gets the 429) and the newcomer is admitted; otherwise the newcomer is the heaviest and is
refused. So a polite client is never refused because a greedy one filled the queue.

A batch request reserves as many units as it has submissions, all or nothing; each unit then
waits for its own slot, so a big batch takes turns like everyone else.

``policy="fcfs"`` puts every client in one line (the behaviour before fair admission); it is
kept so the benchmark can compare both in one run.

Reserve slots (math's spare sympy worker; code's ``code_reserve_slots``): beyond ``slots``, up to ``reserve_slots`` more
units may run, each only for a client that has nothing running in the class. Why: a
slot is held for as long as its unit runs, and a math answer can run to its timeout (5 s,
stretched up to 4x while code traffic holds it), so one client's two slow answers held both
workers and every other client's one-line answer waited behind them, however fair the order
of the line. With a reserve, a client that holds nothing starts at once beside them; the
reserve never goes to a client that is already running, so no client holds more than
``slots`` units. Code submissions are the same case at a larger scale: one client's 16
sleeping submissions (or one batch of them) held every code slot until the request deadline
and another client's 0.06 s answer waited 117 s in admission (hostile review 6); with the
reserve it is admitted at once, and the sandbox slot gate (``sandboxes/backends/slot_queue``)
gives its runs the next free sandbox slot.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from contextlib import asynccontextmanager

from verifier.clients import current_client
from verifier.errors import Overloaded, TooLarge

FCFS_CLIENT = "*"


class _Client:
    __slots__ = ("id", "weight", "held", "running", "waiters", "pass_", "seq", "tickets")

    def __init__(self, cid: str, weight: float):
        self.id, self.weight = cid, weight
        self.held = 0  # units admitted and not finished (waiting + running)
        self.running = 0
        self.waiters: deque[tuple[asyncio.Future, Ticket]] = deque()
        self.pass_ = 0.0
        self.seq = 0
        self.tickets: list[Ticket] = []  # open tickets, oldest first (the newest is pushed out)


class FairQueue:
    """One work class: ``slots`` units run at once, ``queue_size`` more may wait."""

    def __init__(self, name: str, slots: int, queue_size: int, retry_after_s: int = 1, *,
                 max_per_client: int = 0, weights: dict[str, float] | None = None,
                 policy: str = "fair", stats=None, reserve_slots: int = 0):
        if slots < 1:
            raise ValueError(f"{name}: slots must be >= 1, got {slots}")
        if reserve_slots < 0:
            raise ValueError(f"{name}: reserve_slots must be >= 0, got {reserve_slots}")
        self.reserve_slots = reserve_slots if policy == "fair" else 0
        if policy not in ("fair", "fcfs"):
            raise ValueError(f"{name}: policy must be 'fair' or 'fcfs', got {policy!r}")
        self.name, self.slots, self.queue_size = name, slots, queue_size
        self.retry_after_s = retry_after_s
        self.max_per_client = max_per_client or (slots + queue_size)
        self.weights = dict(weights or {})
        self.policy = policy
        self.stats = stats  # ClientStats or None: counts per client class for /metrics
        self.admitted = 0
        self.running = 0
        self.rejected = 0
        self.evicted = 0
        self._clients: dict[str, _Client] = {}
        self._vtime = 0.0
        self._seq = itertools.count(1)

    # -- figures ------------------------------------------------------------------
    @property
    def capacity(self) -> int:
        return self.slots + self.queue_size

    @property
    def waiting(self) -> int:
        return self.admitted - self.running

    @property
    def saturated(self) -> bool:
        """Full: the next request would be refused (or push another client's out)."""
        return self.admitted >= self.capacity

    def held_by(self, client: str) -> int:
        c = self._clients.get(client)
        return c.held if c else 0

    # -- admission ------------------------------------------------------------------
    def reserve(self, units: int = 1, client: str | None = None) -> "Ticket":
        """Take ``units`` places in line now or raise Overloaded/TooLarge (never waits)."""
        cid = FCFS_CLIENT if self.policy == "fcfs" else (client or current_client())
        per_client = self.capacity if self.policy == "fcfs" else self.max_per_client
        limit = min(self.capacity, per_client)
        if units > limit:
            raise TooLarge(f"a request of {units} submissions exceeds what one client may have "
                           f"in line for {self.name} judging ({limit}); split it")
        c = self._clients.get(cid)
        held = c.held if c else 0
        if held + units > per_client:
            self._refuse(cid, f"client {cid!r} already has {held} submissions in line for "
                              f"{self.name} judging (limit {per_client} per client)")
        if self.admitted + units > self.capacity and not self._push_out(cid, held, units):
            self._refuse(cid, f"{self.name} queue full ({self.admitted} submissions admitted, "
                              f"capacity {self.capacity}) and client {cid!r} holds the largest "
                              f"share; retry later")
        c = self._client(cid)
        c.held += units
        self.admitted += units
        t = Ticket(self, c, units)
        c.tickets.append(t)
        if self.stats is not None:
            self.stats.count(self.name, cid, "admitted", units)
        return t

    def _refuse(self, cid: str, message: str):
        self.rejected += 1
        if self.stats is not None:
            self.stats.count(self.name, cid, "rejected")
        raise Overloaded(message, self.retry_after_s)

    def _weight(self, cid: str) -> float:
        return self.weights.get(cid, 1.0)

    def _push_out(self, cid: str, held: int, units: int) -> bool:
        """Make room by refusing the heaviest clients' newest unstarted tickets; True if done."""
        if self.policy == "fcfs":
            return False
        mine = (held + units) / self._weight(cid)
        loads = {c.id: c.held for c in self._clients.values() if c.id != cid}
        victims: list[Ticket] = []
        need = self.admitted + units - self.capacity
        while need > 0:
            best = None
            for other in self._clients.values():
                if other.id == cid:
                    continue
                load = loads[other.id] / other.weight
                if load <= mine:
                    continue
                t = next((t for t in reversed(other.tickets)
                          if t.granted == 0 and t not in victims), None)
                if t is not None and (best is None or load > best[0]):
                    best = (load, t)
            if best is None:
                return False
            victims.append(best[1])
            loads[best[1].client.id] -= best[1].left
            need -= best[1].left
        for t in victims:
            t._evict(f"pushed out of the {self.name} queue: client {t.client.id!r} holds more "
                     f"than its share while another client waits; retry later")
        return True

    def _client(self, cid: str) -> _Client:
        c = self._clients.get(cid)
        if c is None:
            c = self._clients[cid] = _Client(cid, self._weight(cid))
            c.pass_, c.seq = self._vtime, next(self._seq)
        return c

    # -- slots ----------------------------------------------------------------------
    def _has_waiters(self) -> bool:
        return any(c.waiters for c in self._clients.values())

    def _may_run(self, c: _Client) -> bool:
        """A slot is free for ``c``: a regular one, or a reserve one if it runs nothing."""
        return self.running < self.slots or (
            c.running == 0 and self.running < self.slots + self.reserve_slots)

    def _grant(self, c: _Client) -> None:
        self._vtime = max(self._vtime, c.pass_)
        c.pass_ += 1.0 / c.weight
        c.seq = next(self._seq)
        c.running += 1
        self.running += 1

    def _dispatch(self) -> None:
        """Hand free slots to waiting clients in weighted round-robin order."""
        while self.running < self.slots + self.reserve_slots:
            backlog = [c for c in self._clients.values() if c.waiters and self._may_run(c)]
            if not backlog:
                return
            c = min(backlog, key=lambda x: (x.pass_, x.seq))
            fut, ticket = c.waiters.popleft()
            if fut.done():  # its task was cancelled and has not run its cleanup yet
                continue
            self._grant(c)
            ticket.granted += 1
            fut.set_result(None)

    def _backlog(self, c: _Client) -> None:
        if not c.waiters:  # idle clients keep no credit
            if c.pass_ < self._vtime:
                c.pass_, c.seq = self._vtime, next(self._seq)

    def _finish(self, c: _Client) -> None:
        c.running -= 1
        self.running -= 1
        self._dispatch()

    def _forget_if_idle(self, c: _Client) -> None:
        if c.held == 0 and not c.waiters and self._clients.get(c.id) is c:
            del self._clients[c.id]


class Ticket:
    """Places in line; each ``slot()`` use waits for a judging slot. Release when done."""

    def __init__(self, queue: FairQueue, client: _Client, units: int):
        self.queue, self.client = queue, client
        self.left = units
        self.granted = 0  # units that got a slot (a ticket with none may be pushed out)
        self.evicted: Overloaded | None = None
        self._waiting: set[asyncio.Future] = set()

    @asynccontextmanager
    async def slot(self):
        q, c = self.queue, self.client
        if self.evicted is not None:
            raise self.evicted
        if q.running < q.slots and not q._has_waiters():
            q._grant(c)
            self.granted += 1
        elif q.reserve_slots and c.running == 0 and q.running < q.slots + q.reserve_slots and not c.waiters:
            # a client running nothing takes a reserve slot even past others' waiting units
            # (theirs could not use it: each of them is running already)
            q._grant(c)
            self.granted += 1
        else:
            q._backlog(c)
            fut = asyncio.get_running_loop().create_future()
            c.waiters.append((fut, self))
            self._waiting.add(fut)
            try:
                await fut
            except BaseException:
                self._waiting.discard(fut)
                if fut.done() and not fut.cancelled() and fut.exception() is None:
                    q._finish(c)  # granted, then cancelled before it could run: pass it on
                elif (fut, self) in c.waiters:
                    c.waiters.remove((fut, self))
                raise
            self._waiting.discard(fut)
        try:
            yield
        finally:
            q._finish(c)
            self._done(1)

    def _done(self, n: int) -> None:
        n = min(n, self.left)
        if n <= 0:
            return
        self.left -= n
        self.client.held -= n
        self.queue.admitted -= n
        if self.left == 0 and self in self.client.tickets:
            self.client.tickets.remove(self)
        self.queue._forget_if_idle(self.client)

    def _evict(self, message: str) -> None:
        q = self.queue
        self.evicted = Overloaded(message, q.retry_after_s)
        q.evicted += 1
        if q.stats is not None:
            q.stats.count(q.name, self.client.id, "evicted")
        for fut in list(self._waiting):
            if (fut, self) in self.client.waiters:
                self.client.waiters.remove((fut, self))
            if not fut.done():
                fut.set_exception(self.evicted)
        self._done(self.left)

    def release(self) -> None:
        """Give back places not used (a finished, cancelled or failed request)."""
        self._done(self.left)

    def __enter__(self) -> "Ticket":
        return self

    def __exit__(self, *exc) -> None:
        self.release()
