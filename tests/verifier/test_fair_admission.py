"""Fair admission (verifier.admission.FairQueue): round-robin order, weights, who gets the 429.

Deterministic: slots are held and released by the test itself (no sandbox, no clock); the only
awaits are scheduling yields until the expected waiters are registered.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from verifier.admission import FairQueue
from verifier.errors import Overloaded, TooLarge


async def _until(cond, rounds: int = 1000) -> None:
    for _ in range(rounds):
        if cond():
            return
        await asyncio.sleep(0)  # a scheduling yield, not a timer
    raise AssertionError("condition not reached")


class Line:
    """Clients each taking one slot per request; a slot is held until the test releases it."""

    def __init__(self, q: FairQueue):
        self.q = q
        self.order: list[str] = []
        self.gates: list[asyncio.Event] = []
        self.tasks: list[asyncio.Task] = []

    def submit(self, client: str, units: int = 1) -> asyncio.Task:
        ticket = self.q.reserve(units, client=client)

        async def one():
            with ticket:
                async with ticket.slot():
                    gate = asyncio.Event()
                    self.gates.append(gate)
                    self.order.append(client)
                    await gate.wait()
        task = asyncio.create_task(one())
        self.tasks.append(task)
        return task

    async def release_next(self) -> None:
        """Let the oldest running request finish; the freed slot goes to the next in line."""
        n, more = len(self.order), self.q.waiting > 0
        next(g for g in self.gates if not g.is_set()).set()
        if more:
            await _until(lambda: len(self.order) > n)

    async def drain(self) -> None:
        """Let everything run to the end (requests pushed out end with their 429)."""
        while not all(t.done() for t in self.tasks):
            for g in self.gates:
                g.set()
            await asyncio.sleep(0)
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def test_round_robin_between_clients_in_arrival_order():
    q = FairQueue("code", slots=1, queue_size=16)
    line = Line(q)
    line.submit("hold")
    await _until(lambda: line.order == ["hold"])
    for c in ["A", "A", "A", "B", "B", "C"]:
        line.submit(c)
    await _until(lambda: q.waiting == 6)
    for _ in range(6):
        await line.release_next()
    assert line.order == ["hold", "A", "B", "C", "A", "B", "A"]
    await line.drain()
    assert q.admitted == 0 and q.running == 0 and not q._clients


async def test_fcfs_policy_serves_in_arrival_order():
    q = FairQueue("code", slots=1, queue_size=16, policy="fcfs")
    line = Line(q)
    line.submit("hold")
    for c in ["A", "A", "A", "B", "B", "C"]:
        line.submit(c)
    await _until(lambda: q.waiting == 6)
    for _ in range(6):
        await line.release_next()
    assert line.order == ["hold", "A", "A", "A", "B", "B", "C"]
    await line.drain()


async def test_weights_share_slots_in_proportion():
    q = FairQueue("code", slots=1, queue_size=64, weights={"heavy": 3.0})
    line = Line(q)
    line.submit("hold")
    for _ in range(20):
        line.submit("heavy")
        line.submit("light")
    await _until(lambda: q.waiting == 40)
    for _ in range(20):
        await line.release_next()
    served = line.order[1:21]
    assert served.count("heavy") == 15 and served.count("light") == 5, served
    await line.drain()


async def test_a_returning_client_keeps_no_credit():
    """A client idle for a while does not get a burst of turns when it comes back."""
    q = FairQueue("code", slots=1, queue_size=64)
    line = Line(q)
    line.submit("hold")
    for _ in range(10):
        line.submit("A")
    await _until(lambda: q.waiting == 10)
    for _ in range(5):
        await line.release_next()
    for _ in range(3):
        line.submit("B")
    await _until(lambda: q.waiting == 8)
    for _ in range(6):
        await line.release_next()
    assert line.order[6:] == ["B", "A", "B", "A", "B", "A"]
    await line.drain()


async def test_greedy_client_gets_the_429_not_the_polite_one():
    q = FairQueue("code", slots=1, queue_size=3, retry_after_s=2)
    line = Line(q)
    greedy = [line.submit("greedy") for _ in range(4)]  # fills slots + queue
    await _until(lambda: q.running == 1 and q.waiting == 3)
    polite = line.submit("polite")  # pushes out the greedy client's newest waiting request
    with pytest.raises(Overloaded) as ei:
        await greedy[-1]
    assert ei.value.retry_after_s == 2 and "greedy" in ei.value.message
    assert q.evicted == 1 and q.held_by("polite") == 1
    with pytest.raises(Overloaded):  # greedy again: it is the heaviest, so it is refused
        q.reserve(1, client="greedy")
    assert q.rejected == 1
    await line.release_next()
    assert line.order == ["greedy", "polite"]  # polite's turn comes before greedy's queue
    await line.drain()
    assert q.admitted == 0


async def test_fcfs_refuses_the_polite_client_when_the_queue_is_full():
    q = FairQueue("code", slots=1, queue_size=3, policy="fcfs")
    line = Line(q)
    for _ in range(4):
        line.submit("greedy")
    with pytest.raises(Overloaded):
        q.reserve(1, client="polite")
    await line.drain()


async def test_running_requests_are_never_pushed_out():
    q = FairQueue("code", slots=2, queue_size=0)
    line = Line(q)
    line.submit("greedy")
    line.submit("greedy")
    await _until(lambda: q.running == 2)
    with pytest.raises(Overloaded):
        q.reserve(1, client="polite")  # full, and nothing of greedy's is only waiting
    assert q.evicted == 0
    await line.drain()


def test_per_client_cap_and_too_large():
    q = FairQueue("code", slots=2, queue_size=10, max_per_client=3)
    held = [q.reserve(1, client="greedy") for _ in range(3)]
    with pytest.raises(Overloaded, match="limit 3 per client"):
        q.reserve(1, client="greedy")
    q.reserve(1, client="polite").release()
    with pytest.raises(TooLarge):
        q.reserve(4, client="other")  # could never fit one client's share: 413, not 429
    for t in held:
        t.release()
    assert q.admitted == 0


def test_refusals_only_ever_hit_the_heaviest_client():
    """Random arrivals and departures. A client is refused only when it would hold more than
    its fair share (capacity x its weight / the weights of the clients holding places), and a
    push-out only ever hits a client holding more per weight than the newcomer would."""
    rng = random.Random(7)
    weights = {"w2": 2.0}
    q = FairQueue("code", slots=3, queue_size=9, weights=weights)
    clients = ["a", "b", "c", "w2"]
    open_tickets = []
    refused = 0
    for _ in range(3000):
        if open_tickets and rng.random() < 0.45:
            t = open_tickets.pop(rng.randrange(len(open_tickets)))
            t.release()
            continue
        c = rng.choice(clients)
        units = rng.choice([1, 1, 1, 2])
        before = {x: q.held_by(x) / weights.get(x, 1.0) for x in clients}
        mine = (q.held_by(c) + units) / weights.get(c, 1.0)
        evicted_before = q.evicted
        try:
            t = q.reserve(units, client=c)
        except Overloaded:
            active = {x for x in clients if q.held_by(x)} | {c}
            share = q.capacity / sum(weights.get(x, 1.0) for x in active)
            assert mine > share, (c, units, before)
            refused += 1
            continue
        open_tickets.append(t)
        if q.evicted > evicted_before:
            victims = [x for x in clients if x != c and q.held_by(x) / weights.get(x, 1.0) < before[x]]
            assert victims and all(before[v] > mine for v in victims), (c, before)
        assert q.admitted <= q.capacity
        open_tickets = [t for t in open_tickets if t.left and t.evicted is None]
    assert q.admitted == sum(q.held_by(x) for x in clients)
    assert refused and q.evicted, "the walk never filled the queue: it tests nothing"


async def test_a_waiter_cancelled_as_its_slot_frees_does_not_leak_the_slot():
    """Many clients hang up at once (a greedy client exits): the freed slot must not be handed
    to a waiter whose task is already cancelled, or it is lost for good."""
    q = FairQueue("code", slots=1, queue_size=8)
    line = Line(q)
    line.submit("A")
    await _until(lambda: q.running == 1)
    doomed = line.submit("B")
    line.submit("C")
    await _until(lambda: sum(len(c.waiters) for c in q._clients.values()) == 2)
    line.gates[0].set()  # A finishes on the next loop step ...
    doomed.cancel()  # ... and B's task is cancelled before its cleanup runs
    await _until(lambda: line.order == ["A", "C"])
    await line.drain()
    assert doomed.cancelled()
    assert q.running == 0 and q.admitted == 0


# -- reserve slots (math's spare worker) -----------------------------------------------------

def _running(q: FairQueue, client: str) -> int:
    c = q._clients.get(client)
    return c.running if c else 0


async def test_reserve_slot_goes_to_a_client_running_nothing():
    # One client's slow answers fill both regular slots; another's answer starts at once.
    q = FairQueue("math", slots=2, queue_size=16, reserve_slots=1)
    line = Line(q)
    for _ in range(3):
        line.submit("heavy")
    await _until(lambda: line.order == ["heavy", "heavy"] and q.waiting == 1)
    line.submit("light")
    await _until(lambda: line.order == ["heavy", "heavy", "light"])
    assert q.running == 3 and _running(q, "heavy") == 2
    # the reserve is in use: a third client waits, and gets the first slot freed (heavy is
    # running already, so it may not take a slot while the total is at its regular size)
    line.submit("third")
    await _until(lambda: q.waiting == 2)
    await line.release_next()
    assert line.order[-1] == "third"
    await line.drain()
    assert q.admitted == 0 and q.running == 0 and not q._clients


async def test_reserve_never_lets_one_client_past_the_regular_slots():
    q = FairQueue("math", slots=2, queue_size=16, reserve_slots=1)
    line = Line(q)
    for _ in range(5):
        line.submit("heavy")
    await _until(lambda: q.waiting == 3)
    for _ in range(10):
        await asyncio.sleep(0)
    assert q.running == 2 and line.order == ["heavy", "heavy"]
    await line.drain()
    assert line.order == ["heavy"] * 5


async def test_without_reserve_a_light_client_waits_behind_full_slots():
    q = FairQueue("math", slots=2, queue_size=16)
    line = Line(q)
    line.submit("heavy")
    line.submit("heavy")
    await _until(lambda: q.running == 2)
    line.submit("light")
    await _until(lambda: q.waiting == 1)
    for _ in range(10):
        await asyncio.sleep(0)
    assert "light" not in line.order
    await line.release_next()
    assert line.order[-1] == "light"
    await line.drain()


async def test_fcfs_has_no_reserve():
    q = FairQueue("math", slots=1, queue_size=8, policy="fcfs", reserve_slots=1)
    assert q.reserve_slots == 0


@pytest.mark.parametrize("seed", range(20))
async def test_reserve_invariants_under_random_traffic(seed):
    rng = random.Random(seed)
    slots, reserve = rng.randint(1, 3), rng.randint(1, 2)
    q = FairQueue("math", slots=slots, queue_size=64, reserve_slots=reserve)
    line = Line(q)
    for _ in range(60):
        if rng.random() < 0.6:
            line.submit(rng.choice("ABCD"))
        else:
            open_gates = [g for g in line.gates if not g.is_set()]
            if open_gates:
                rng.choice(open_gates).set()
        for _ in range(5):
            await asyncio.sleep(0)
        assert q.running <= slots + reserve
        for cid, c in q._clients.items():
            assert c.running <= slots, (cid, c.running)
            # nobody waits while a slot it may take is free
            if c.waiters:
                assert not q._may_run(c), (cid, q.running, c.running)
    await line.drain()
    assert q.admitted == 0 and q.running == 0 and not q._clients
