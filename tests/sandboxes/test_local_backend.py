"""Local-backend specifics: slot recovery, uid leases, registry, start-up checks."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from sandboxes.backends.base import SandboxError
from sandboxes.backends.local import LocalBackend, UidLease
from sandboxes.backends.registry import create_backend
from sandboxes.types import Batch, Blob, RunSpec, Source, Status

APLUSB = "a, b = map(int, input().split())\nprint(a + b)\n"


def _batch(n=1):
    return Batch(program=Source(language="python", code=APLUSB),
                 runs=[RunSpec(id=str(i), stdin=Blob(data=f"{i} 1\n".encode())) for i in range(n)])


def test_registry_builds_local_and_names_unknown_backends():
    assert isinstance(create_backend("local", capacity=1), LocalBackend)
    with pytest.raises(ValueError, match="unknown sandbox backend 'nope'"):
        create_backend("nope")


async def test_a_dead_agent_is_ie_then_replaced():
    async with LocalBackend(capacity=1, selftest=False) as be:
        slot = be.slots[0]
        first_pid = slot.proc.pid
        os.kill(first_pid, signal.SIGKILL)  # the slot's bwrap (and so its agent) dies
        slot.proc.wait()
        res = await be.run_batch(_batch())
        # The broken slot was replaced before reuse; the batch still judged correctly or
        # reported IE, never a verdict on the code.
        assert res.compile.status in (Status.OK, Status.IE)
        again = await be.run_batch(_batch(3))
        assert [r.stdout for r in again.runs] == [b"1\n", b"2\n", b"3\n"]
        assert slot.proc.pid != first_pid


async def test_agent_death_mid_run_is_ie_not_a_verdict():
    async with LocalBackend(capacity=1, selftest=False) as be:
        comp = await be.compile(Source(language="python", code="import time\ntime.sleep(30)\n"))
        slot = be.slots[0]
        task = asyncio.create_task(be.run_batch(Batch(program=comp.artifact, runs=[RunSpec(id="x")])))
        await asyncio.sleep(0.5)
        slot.proc.kill()
        res = await task
        assert res.runs[0].status == Status.IE
        ok = await be.run_batch(_batch())
        assert ok.runs[0].status == Status.OK


def test_uid_leases_are_exclusive(tmp_path):
    a = UidLease(str(tmp_path), 62000, span=2)
    b = UidLease(str(tmp_path), 62000, span=2)
    assert {a.uid, b.uid} == {62000, 62001}
    with pytest.raises(SandboxError, match="no free run uid"):
        UidLease(str(tmp_path), 62000, span=2)
    a.release()
    c = UidLease(str(tmp_path), 62000, span=2)
    assert c.uid == a.uid
    b.release()
    c.release()


async def test_missing_bwrap_fails_start_clearly():
    with pytest.raises(SandboxError, match="bubblewrap not found"):
        await LocalBackend(bwrap="/nonexistent/bwrap", capacity=1).start()


async def test_runs_spread_over_slots_with_distinct_uids():
    code = "import os\nprint(os.getuid())\nsum(range(2_000_000))\n"
    async with LocalBackend(capacity=2, selftest=False) as be:
        assert len(set(be.run_uids)) == 2 and 0 not in be.run_uids
        res = await be.run_batch(Batch(program=Source(language="python", code=code),
                                       runs=[RunSpec(id=str(i)) for i in range(6)]))
        uids = {int(r.stdout) for r in res.runs}
        assert uids <= set(be.run_uids) and len(uids) == 2


def _agent_pid(slot) -> int:
    """The agent inside the slot: bwrap's child (it lives in the slot's namespaces)."""
    with open(f"/proc/{slot.proc.pid}/task/{slot.proc.pid}/children") as f:
        return int(f.read().split()[0])


async def test_a_slot_whose_check_fails_is_replaced():
    """A SysV segment the run uid cannot remove (root's, planted in the slot's IPC
    namespace) fails the agent's check after the next run: that slot is replaced."""
    import subprocess
    code = "import ctypes\nassert ctypes.CDLL(None).shmget(0x0c0ffee, 4096, 0o1000 | 0o600) >= 0\n"
    async with LocalBackend(capacity=1, selftest=False) as be:
        slot = be.slots[0]
        first = slot.proc.pid
        subprocess.run(["nsenter", "-t", str(_agent_pid(slot)), "--ipc", "/usr/bin/python3", "-c", code], check=True)
        res = await be.run_batch(_batch())
        assert res.runs[0].status == Status.OK and res.runs[0].stdout == b"1\n", "the run is still judged"
        assert "SysV shm" in slot.last_kill_reason, slot.last_kill_reason
        again = await be.run_batch(Batch(program=Source(language="python", code=(
            "print(open('/proc/sysvipc/shm').read().count('\\n'))\n")), runs=[RunSpec(id="a")]))
        assert again.runs[0].stdout == b"1\n", "the new slot's IPC namespace is empty (header only)"
        assert slot.proc.pid != first


async def test_a_cancelled_run_keeps_its_slot_until_the_thread_is_done(tmp_path):
    """A caller cancelled while its run is in a worker thread (linked input: opened and
    hash-checked off the event loop) must not give the slot back before that thread is done:
    the next run would find the slot busy and report IE for a test that did nothing wrong."""
    from problem_store.blobs.file import FileBlobStore

    store = FileBlobStore(str(tmp_path / "store"))
    link = store.put(b"2 3\n")[0]
    sleepy = "import time\ntime.sleep(0.8)\nprint(sum(map(int, input().split())))\n"
    async with LocalBackend(resolver=store, capacity=1, selftest=False) as be:
        compiled = await be.compile(Source(language="python", code=sleepy))
        art = compiled.artifact
        data = await be._program_bytes(art)
        aplusb = await be.compile(Source(language="python", code=APLUSB))
        adata = await be._program_bytes(aplusb.artifact)
        slow = asyncio.create_task(be.run_one(art, data, RunSpec(id="slow", stdin=Blob(link=link))))
        while be._idle.qsize():  # the slow run holds the only slot
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)  # let its request reach the agent (a window, not a timing claim)
        slow.cancel()
        fast = [await be.run_one(aplusb.artifact, adata, RunSpec(id=str(i), stdin=Blob(data=f"{i} 1\n".encode())))
                for i in range(3)]
        assert [r.status for r in fast] == [Status.OK] * 3, fast
        assert [r.stdout for r in fast] == [b"1\n", b"2\n", b"3\n"]
