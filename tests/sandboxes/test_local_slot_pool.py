"""The local backend's slot pool: one slot, one user, on every path.

A slot handed to two runs at once showed up as IE "slot N is busy" at an embedded
verifier's start-up self-test. Each test forces one interleaving with events or a hook
(never a sleep) and checks the pool afterwards: every slot idle exactly once, none held,
and nothing logged by the pool's own checks.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import threading

import pytest

from sandboxes.backends import local_slot
from sandboxes.backends.local import LocalBackend
from sandboxes.types import Blob, RunSpec, Source, Status

APLUSB = "a, b = map(int, input().split())\nprint(a + b)\n"
GUARD_S = 60  # a hang (a slot lost from the pool) fails the test instead of blocking it


def _spec(i: int) -> RunSpec:
    return RunSpec(id=str(i), stdin=Blob(data=f"{i} 1\n".encode()))


async def _aplusb(be: LocalBackend):
    comp = await be.compile(Source(language="python", code=APLUSB))
    assert comp.status == Status.OK, comp.log
    return comp.artifact, await be._program_bytes(comp.artifact)


def _assert_pool_whole(be: LocalBackend, caplog) -> None:
    idle = list(be._idle._queue)
    counts = collections.Counter(map(id, idle))
    assert all(n == 1 for n in counts.values()), f"a slot is idle twice: {[s.index for s in idle]}"
    assert set(counts) == set(map(id, be.slots)), "every slot is back, and only the pool's own"
    assert not any(s.in_use or s.lock.locked() for s in be.slots)
    pool_errors = [r for r in caplog.records if r.levelno >= logging.ERROR and "slot" in r.getMessage()]
    assert not pool_errors, [r.getMessage() for r in pool_errors]


async def test_starts_at_the_same_moment_make_one_pool_with_each_slot_idle_once(caplog):
    """The cause of the double use: an embedded service is started by its first callers,
    and several arrive together (an RL step's judges). Two concurrent start()s each queued
    every slot they saw, and the second made a second set of slots, so every slot was
    idle twice and two runs got it: the second found its lock taken ('slot N is busy')."""
    be = LocalBackend(capacity=2, selftest=False)
    try:
        await asyncio.gather(be.start(), be.start())
        assert len(be.slots) == 2
        _assert_pool_whole(be, caplog)
        await be.start()  # started: nothing more
        assert len(be.slots) == 2 and be._idle.qsize() == 2
        art, data = await _aplusb(be)
        res = await asyncio.gather(*(be.run_one(art, data, _spec(i)) for i in range(6)))
        assert [r.stdout for r in res] == [f"{i + 1}\n".encode() for i in range(6)], res
        _assert_pool_whole(be, caplog)
    finally:
        await be.close()


async def test_a_caller_cancelled_while_its_slot_is_respawned_gives_it_back(caplog):
    """_acquire replaces a dead agent and greets the new one in a thread. A caller cancelled
    then lost the slot for good (the pool shrank; with one slot every later run hung); it
    must come back, and only once the greeting thread is done with it."""
    async with LocalBackend(capacity=1, selftest=False) as be:
        art, data = await _aplusb(be)
        slot = be.slots[0]
        slot.proc.kill()
        slot.proc.wait()
        entered, go = threading.Event(), threading.Event()
        greet = slot.hello

        def held_hello(*a, **kw):
            entered.set()
            go.wait(GUARD_S)
            return greet(*a, **kw)

        slot.hello = held_hello
        first = asyncio.create_task(be.run_one(art, data, _spec(1)))
        assert await asyncio.to_thread(entered.wait, GUARD_S)
        first.cancel()
        second = asyncio.create_task(be.run_one(art, data, _spec(2)))
        await asyncio.sleep(0)
        assert not second.done(), "the greeting still holds the only slot"
        go.set()
        async with asyncio.timeout(GUARD_S):
            res = await second
        assert res.status == Status.OK and res.stdout == b"3\n", res
        with pytest.raises(asyncio.CancelledError):
            await first
        _assert_pool_whole(be, caplog)


async def test_a_caller_cancelled_while_reading_the_reset_frame_gives_the_slot_back(monkeypatch, caplog):
    """After a run the agent resets, then sends its ready frame; _acquire reads it before the
    slot serves again. A caller cancelled in that read lost the slot; now the slot (whose
    stream is out of step) is killed, given back, and replaced by the next run."""
    async with LocalBackend(capacity=1, selftest=False) as be:
        art, data = await _aplusb(be)
        slot = be.slots[0]
        assert (await be.run_one(art, data, _spec(0))).status == Status.OK
        assert slot.ready_pending, "this agent resets after its reply"
        reached, release = asyncio.Event(), asyncio.Event()
        armed = [True]
        recv = local_slot._recv_exact

        async def gated(loop, sock, n):
            if armed[0]:
                armed[0] = False
                reached.set()
                await release.wait()
            return await recv(loop, sock, n)

        monkeypatch.setattr(local_slot, "_recv_exact", gated)
        first = asyncio.create_task(be.run_one(art, data, _spec(1)))
        await reached.wait()
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first
        release.set()
        async with asyncio.timeout(GUARD_S):
            res = await be.run_one(art, data, _spec(2))
        assert res.status == Status.OK and res.stdout == b"3\n", res
        assert "cancelled while reading the reset frame" in slot.last_kill_reason
        _assert_pool_whole(be, caplog)


async def test_a_double_release_or_a_held_slot_handed_out_is_refused_loudly(caplog):
    from sandboxes.backends.slot_queue import SlotPoolError

    async with LocalBackend(capacity=1, selftest=False) as be:
        slot = await be._acquire()
        be._release(slot)
        with pytest.raises(SlotPoolError, match="released while already free"):
            be._release(slot)
        assert be._idle.qsize() == 1, "refused, not queued a second time"
        assert "double release refused" in caplog.text
        # A slot whose lock is taken (a request on it) is neither released nor handed out.
        slot = await be._acquire()
        with slot.lock:
            with pytest.raises(SlotPoolError, match="request is still on it"):
                be._release(slot)
            slot.in_use = False
            be._idle.put_nowait(slot)
            with pytest.raises(SlotPoolError, match="handed out while still held"):
                await be._acquire()


async def test_runs_cancelled_at_every_step_and_killed_agents_never_share_a_slot(caplog):
    """Concurrent runs on 2 slots, cancelled after 0..5 event-loop turns (in the queue,
    reading a reset frame, mid-request, in a respawn), with agents killed between rounds:
    afterwards every slot is idle once, and fresh runs on it give the right answers."""
    async with LocalBackend(capacity=2, selftest=False) as be:
        art, data = await _aplusb(be)
        for rnd in range(3):
            tasks = [asyncio.create_task(be.run_one(art, data, _spec(i))) for i in range(8)]
            for k, t in enumerate(tasks):
                if k % 2:
                    for _ in range(k % 6):
                        await asyncio.sleep(0)
                    t.cancel()
            async with asyncio.timeout(GUARD_S):
                done = await asyncio.gather(*tasks, return_exceptions=True)
            for r in done:
                assert isinstance(r, asyncio.CancelledError) or r.status in (Status.OK, Status.IE), r
            victim = be.slots[rnd % 2].proc
            victim.kill()  # the next round respawns it in _acquire
            victim.wait()
        async with asyncio.timeout(GUARD_S):
            res = await asyncio.gather(*(be.run_one(art, data, _spec(i)) for i in range(4)))
        assert [r.stdout for r in res] == [f"{i + 1}\n".encode() for i in range(4)], res
        # A slot whose request was cancelled mid-way comes back when its thread or reset
        # frame is done, which may be after the last run here on a loaded machine.
        async with asyncio.timeout(GUARD_S):
            while len(be._idle._queue) < len(be.slots):
                await asyncio.sleep(0.01)
        _assert_pool_whole(be, caplog)
