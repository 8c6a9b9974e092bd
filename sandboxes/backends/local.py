"""The ``local`` backend: runner agents in long-lived bubblewrap namespaces on this host.

Why long-lived: a fresh ``bwrap --unshare-all`` per run costs about 8 ms (mostly the new
network namespace), close to the run itself for a Python A+B. So each *slot* is one
bwrap sandbox started once (new net/pid/ipc/uts/mount namespaces, read-only /usr, a
minimal /etc, a size-capped tmpfs /tmp as scratch root, capabilities reduced to what the
agent needs) holding one agent (``sandboxes.runner.agent``). The agent's spawn server
forks every run with rlimits, a fresh scratch dir, its own uid, no_new_privs and its own
session, in its own cgroup, and the agent kills that group (without one: every process of
that uid) before it replies. Slot i's runs execute as a uid leased
exclusively by this backend (``uid_base + k``, flock'ed under ``lock_dir``), because
RLIMIT_NPROC and ``kill(-1)`` work per uid and other backends may share the host.

Accounting: the backend makes a cgroup subtree per slot (``cgroup_host``) and binds it
writable into the slot at ``/sys/fs/cgroup/<controller>``; the agent makes one group per
run below it (CPU time and memory of the whole tree, pids). Where the host has no usable
cgroup hierarchy, ``accounting`` says ``rlimit`` (and ``require_cgroup`` refuses to start).

Host <-> agent: a unix socketpair with length-prefixed JSON frames (PROTOCOL.md); a
linked input blob with a local file goes over as an open, hash-verified fd, so the store's
directory is never visible inside the sandbox. A slot goes back to the pool only after a
clean reply; on a protocol error or timeout its sandbox is killed and a new one started.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import subprocess
from pathlib import Path

from sandboxes.backends.base import SandboxBackend, SandboxError
from sandboxes.backends.cgroup_host import CgroupTree
from sandboxes.backends.cpu_pin import slot_cpus
from sandboxes.backends.slot_queue import PriorityGate, SlotPoolError, SlotQueue
from sandboxes.runner import convert, pch
from sandboxes.runner.batching import run_batch
from sandboxes.runner.protocol import ProtocolError
from sandboxes.types import Artifact, Batch, BatchResult, CompileResult, RunResult, RunSpec, Source
from sandboxes.backends.selftest import run_selftests
# the slot itself (sandbox, uid lease, socket) is its own module; UidLease is imported from
# here by the docker backend
from sandboxes.backends.local_slot import _HELD_ARTIFACTS, _PKG_ROOT, Slot, UidLease

log = logging.getLogger(__name__)


def prepare_pch(root: str | None) -> str | None:
    """Build the precompiled headers on the host (once per compiler and flags; later starts
    find them) and return the dir to bind, or None to compile without. A failure costs
    speed only, never a verdict, so it is logged rather than raised."""
    if not root:
        return None
    try:
        pch.build(root)
        st = os.stat(root)
        if st.st_uid != 0 or st.st_mode & 0o022:
            raise OSError(f"{root} must be owned by root and not group/other-writable")
        return root
    except (OSError, subprocess.SubprocessError, RuntimeError) as exc:
        log.warning("local backend without precompiled headers: %s", exc)
        return None


class LocalBackend(SandboxBackend):
    name = "local"

    def __init__(self, resolver=None, *, capacity: int | None = None, output_store=None,
                 scratch_size_mb: int = 256, uid_base: int = 61000,
                 lock_dir: str = "/run/oubliette-sandbox", bwrap: str | None = None,
                 selftest: bool = True, cgroups: bool = True, require_cgroup: bool = False,
                 package_root: str | None = None, python_fork_server: bool = True,
                 pch_cache: str | None = "/var/cache/oubliette/pch", pin_cpus: bool = True):
        """``resolver``: a BlobStore (or anything with ``get``/``local_path``) for links.
        ``capacity``: parallel slots (default: CPU cores). ``scratch_size_mb``: tmpfs cap
        of one slot's scratch. ``output_store``: where ``output_to_store`` puts stdout
        (default: the resolver if it can ``put``). ``cgroups``: account each run in its own
        cgroup when the host allows (False: the rlimit fallback); ``require_cgroup``: refuse
        to start without one. ``package_root``: the checkout whose ``sandboxes/`` the agents
        run (default: this one; benchmarks point it at another revision).
        ``python_fork_server``: Python tests run as forks of a started interpreter per slot
        (sandboxes/runner/pyfork.py); False: every test execs python3 (the old path).
        ``pch_cache``: host dir where precompiled headers are built once
        (sandboxes/runner/pch.py) and bound read-only into every slot; None: compile without them.
        ``pin_cpus``: each slot (its agent and every run) on a core of its own, where there
        are at least as many usable cores as slots (sandboxes/backends/cpu_pin.py)."""
        self.python_fork_server = python_fork_server
        self.pin_cpus = pin_cpus
        self._capacity = capacity or os.cpu_count() or 1
        self.resolver = convert.BlobResolver(resolver, pass_fds=True)
        self._code_objects = convert.CodeObjects()
        self.output_store = output_store if output_store is not None else (
            resolver if hasattr(resolver, "put") else None)
        self.scratch_size_mb, self.uid_base, self.lock_dir = scratch_size_mb, uid_base, lock_dir
        self.bwrap = bwrap or shutil.which("bwrap") or "/usr/bin/bwrap"
        self.selftest = selftest
        self.slots: list[Slot] = []
        self._leases: list[UidLease] = []
        self._idle: SlotQueue[Slot] | None = None
        self._gate: PriorityGate | None = None
        self._started = self._closing = False
        self._start_lock: asyncio.Lock | None = None
        self.use_cgroups, self.require_cgroup = cgroups, require_cgroup
        self.package_root = Path(package_root) if package_root else _PKG_ROOT
        self._cgroup_tree: CgroupTree | None = None
        self.pch_cache, self.pch_root = pch_cache, None
        self.accounting = "rlimit"  # capability: cgroup-v1 / cgroup-v2 / rlimit (set by start)
        self.accounting_note = ""

    @property
    def capacity(self) -> int:
        return self._capacity

    @property
    def run_uids(self) -> list[int]:
        """The uids runs execute as (one per slot); nothing of them survives a run."""
        return [s.uid for s in self.slots]

    async def start(self) -> None:
        """Start the slots and self-test them, once: a call while started returns, and calls
        at the same moment (an embedded service started by its first callers) wait for the
        one start. Two starts used to both run: the second made a second set of slots and
        each start queued every slot it saw, so each slot was idle twice and two runs got it."""
        if self._start_lock is None:
            self._start_lock = asyncio.Lock()
        async with self._start_lock:
            if not self._started:
                await self._start()
                self._started = True

    async def _start(self) -> None:
        if not os.access(self.bwrap, os.X_OK):
            raise SandboxError(f"bubblewrap not found at {self.bwrap} (apt-get install bubblewrap)")
        if os.geteuid() != 0:
            raise SandboxError("the local backend needs root: it switches each run to its own uid "
                               "and keeps a few capabilities for its agent (use docker or lambda otherwise)")
        self._idle = SlotQueue()
        self._gate = PriorityGate(self._capacity)
        try:
            self._setup_cgroups()
            self.pch_root = await asyncio.to_thread(prepare_pch, self.pch_cache)
            cpus = slot_cpus(self._capacity, self.pin_cpus)
            for i in range(self._capacity):
                lease = UidLease(self.lock_dir, self.uid_base)
                self._leases.append(lease)
                dirs = self._cgroup_tree.slot(f"slot-{i}") if self._cgroup_tree else None
                slot = Slot(i, lease.uid, self.bwrap, self.scratch_size_mb, dirs, self.package_root,
                            self.python_fork_server, self.pch_root, cpus[i])
                slot.spawn()
                self.slots.append(slot)
            for slot in self.slots:
                try:
                    hello = await asyncio.to_thread(slot.hello)
                except (OSError, ProtocolError) as exc:
                    raise SandboxError(f"slot {slot.index}: agent did not start in bwrap: {exc}") from exc
                if hello.get("accounting", "rlimit") != self.accounting:  # older agents: rlimit
                    raise SandboxError(f"slot {slot.index}: agent accounts runs by "
                                       f"{hello.get('accounting')!r}, expected {self.accounting!r}")
                self._idle.put_nowait(slot)
            if self.selftest:
                await run_selftests(self)
        except BaseException:
            await self.close()
            raise

    def _setup_cgroups(self) -> None:
        if not self.use_cgroups:
            self.accounting_note = "cgroups disabled by configuration"
        else:
            self._cgroup_tree = CgroupTree.create("oubliette-local")
            if self._cgroup_tree is not None:
                self.accounting = self._cgroup_tree.label
                return
            self.accounting_note = CgroupTree.reason
        if self.require_cgroup:
            raise SandboxError(f"local backend: no per-run cgroup possible: {self.accounting_note}")
        log.warning("local backend without cgroups (%s): CPU by /proc scan, memory by RLIMIT_AS",
                    self.accounting_note)

    async def close(self) -> None:
        # Runs may still be in flight: their slots come back while being shut down, and
        # runs waiting for a slot get none (SandboxError: an IE), never a respawned one.
        self._closing, self._started = True, False
        if self._start_lock is not None and not self._start_lock.locked():
            self._start_lock = None  # a later start may be on another event loop
        for slot in self.slots:
            await asyncio.to_thread(slot.shutdown)
        self.slots.clear()
        if self._cgroup_tree is not None:
            await asyncio.to_thread(self._cgroup_tree.close)
            self._cgroup_tree = None
        for lease in self._leases:
            lease.release()
        self._leases.clear()
        self._idle, self._closing = None, False

    # -- the pool --------------------------------------------------------------------------
    # A slot taken by _acquire goes back by exactly one _release, and only once nothing is
    # on it any more: on every path, a cancelled caller included (a worker thread still on
    # the slot keeps it until it is done). Both check it and refuse loudly (SlotPoolError).
    async def _acquire(self) -> Slot:
        if self._idle is None:
            raise SandboxError("local backend is not started (call start() or use 'async with')")
        idle = self._idle
        slot = await idle.get()
        if slot.in_use or (slot.lock.locked() and not self._closing):  # (close's shutdown takes it)
            log.error("slot %d handed out while still held (in use: %s, request on it: %s)",
                      slot.index, slot.in_use, slot.lock.locked(), stack_info=True)
            raise SlotPoolError(f"slot {slot.index} handed out while still held")
        if self._closing:
            idle.put_nowait(slot)  # to the next waiter, which gives up the same way
            raise SandboxError("local backend is closing")
        slot.in_use = True
        try:
            if slot.ready_pending:  # its last run's reset: done by now, normally
                await slot.settle()  # (cancelled mid-frame: it kills the slot)
            if slot.alive:
                return slot
            slot.kill()  # a broken sandbox is replaced before reuse, never reused as is
            slot.spawn()
        except BaseException:
            slot.kill()
            self._release(slot)
            raise
        try:
            await self._on_thread(slot, self._greet, slot)
        except asyncio.CancelledError:
            raise  # _on_thread gives the slot back once the greeting's thread is done
        except BaseException:
            self._release(slot)
            raise
        return slot

    @staticmethod
    def _greet(slot: Slot) -> dict:
        try:
            return slot.hello()
        except BaseException:
            slot.kill()  # not greeted: never serve as is
            raise

    def _release(self, slot: Slot) -> None:
        if not slot.in_use:
            log.error("slot %d released while already free (double release refused)", slot.index,
                      stack_info=True)
            raise SlotPoolError(f"slot {slot.index} released while already free")
        if slot.lock.locked() and not self._closing:  # (close's shutdown takes it)
            log.error("slot %d released while a request is still on it (refused)", slot.index,
                      stack_info=True)
            raise SlotPoolError(f"slot {slot.index} released while a request is still on it")
        slot.in_use = False
        if self._idle is not None:  # None: closed meanwhile, the slot went with the pool
            self._idle.put_nowait(slot)

    async def _call(self, req: dict, fds: list[int], timeout_s: float) -> tuple[dict, Slot | None]:
        try:
            slot = await self._acquire()
        except (OSError, ProtocolError, SandboxError) as exc:
            return {"error": f"no sandbox slot could be started: {exc}", "code": "internal"}, None
        return await self._with_slot_thread(slot, self._call_on, slot, req, fds, timeout_s), slot

    @staticmethod
    def _call_on(slot: Slot, req: dict, fds: list[int], timeout_s: float) -> dict:
        try:
            return slot.request(req, fds, timeout_s)
        except (OSError, ProtocolError) as exc:
            return {"error": f"slot {slot.index} failed: {exc}", "code": "internal"}
        finally:
            for fd in fds:
                os.close(fd)

    # -- the contract ------------------------------------------------------------------------
    async def compile(self, src: Source) -> CompileResult:
        timeout = src.compile_limits.wall_time_s + 30
        try:
            req = convert.compile_request(src)
        except Exception as exc:  # noqa: BLE001
            raise SandboxError(f"bad compile request: {exc}") from exc
        reply, slot = await self._call(req, [], timeout)
        res = convert.compile_result(reply)
        self._code_objects.note(reply)
        if slot is not None and reply.get("artifact"):
            self._mark_held(slot, reply["artifact"]["sha256"])
        return res

    @staticmethod
    def _mark_held(slot: Slot, sha: str) -> None:
        slot.held[sha] = None
        slot.held.move_to_end(sha)
        while len(slot.held) > _HELD_ARTIFACTS:
            slot.held.popitem(last=False)

    async def run_one(self, art: Artifact, data: bytes, spec: RunSpec) -> RunResult:
        timeout = spec.limits.wall_time_s + 30
        try:
            slot = await self._acquire()
        except (OSError, ProtocolError, SandboxError) as exc:
            return convert.ie_result(spec.id, f"no sandbox slot could be started: {exc}")
        linked = convert.linked_blobs(spec)
        if linked and not self.resolver.all_verified(linked):
            # A store file not yet hash-checked here: reading it may take a while, off the loop.
            return await self._with_slot_thread(slot, self._run_on, slot, art, data, spec, timeout)
        try:
            return await self._run_inline(slot, art, data, spec, timeout)
        finally:
            self._release(slot)

    async def _on_thread(self, slot: Slot, fn, *args):
        """``fn(*args)`` in a thread; ``slot`` stays the caller's, unless the caller is
        cancelled: then the slot goes back to the pool once the thread is done with it, not
        before (a slot whose request is still on the wire would be found busy by the next
        run), and the caller must not release it."""
        work = asyncio.ensure_future(asyncio.to_thread(fn, *args))
        try:
            return await asyncio.shield(work)
        except asyncio.CancelledError:
            def back(f: asyncio.Future) -> None:
                if not f.cancelled():
                    f.exception()  # retrieved: the caller is gone, the slot is what matters
                self._release(slot)
            if work.done():
                back(work)
            else:
                work.add_done_callback(back)
            raise

    async def _with_slot_thread(self, slot: Slot, fn, *args):
        """``fn(*args)`` in a thread, then ``slot`` back to the pool (once the thread is done)."""
        try:
            result = await self._on_thread(slot, fn, *args)
        except asyncio.CancelledError:
            raise  # released by _on_thread
        except BaseException:
            self._release(slot)
            raise
        self._release(slot)
        return result

    async def _run_inline(self, slot: Slot, art: Artifact, data: bytes, spec: RunSpec, timeout: float) -> RunResult:
        """``_run_on`` on the event loop, for a run whose inputs are inline or store files
        already hash-checked (opening one is a few syscalls)."""
        sha = convert.program_ref(art, data, with_data=False)["sha256"]
        for with_data in (sha not in slot.held, True):
            fds: list[int] = []
            try:
                try:
                    req = convert.run_request(spec, convert.program_ref(art, data, with_data=with_data, code_objects=self._code_objects),
                                              self.resolver, fds)
                except Exception as exc:  # noqa: BLE001 - missing/corrupt input: our failure, IE
                    return convert.ie_result(spec.id, f"cannot resolve run inputs: {exc}")
                try:
                    reply = await slot.request_async(req, timeout, fds)
                except (OSError, ProtocolError) as exc:
                    reply = {"error": f"slot {slot.index} failed: {exc}", "code": "internal"}
            finally:
                for fd in fds:
                    os.close(fd)
            if reply.get("code") == "artifact_missing" and not with_data:
                slot.held.pop(sha, None)
                continue
            if "error" not in reply:
                self._mark_held(slot, sha)
            return convert.run_result(spec.id, reply)
        return convert.ie_result(spec.id, "agent kept losing the artifact")

    def _run_on(self, slot: Slot, art: Artifact, data: bytes, spec: RunSpec, timeout: float) -> RunResult:
        sha = convert.program_ref(art, data, with_data=False)["sha256"]
        for with_data in (sha not in slot.held, True):
            fds: list[int] = []
            try:
                req = convert.run_request(spec, convert.program_ref(art, data, with_data=with_data, code_objects=self._code_objects),
                                          self.resolver, fds)
            except Exception as exc:  # noqa: BLE001 - missing/corrupt input: our failure, IE
                for fd in fds:
                    os.close(fd)
                return convert.ie_result(spec.id, f"cannot resolve run inputs: {exc}")
            reply = self._call_on(slot, req, fds, timeout)
            if reply.get("code") == "artifact_missing" and not with_data:
                slot.held.pop(sha, None)
                continue
            if "error" not in reply:
                self._mark_held(slot, sha)
            return convert.run_result(spec.id, reply)
        return convert.ie_result(spec.id, "agent kept losing the artifact")

    async def _program_bytes(self, art: Artifact) -> bytes:
        if art.blob.data is not None:  # inline: nothing to read, no thread hop
            return art.blob.data
        return await asyncio.to_thread(self.resolver.data, art.blob)

    async def run_batch(self, batch: Batch) -> BatchResult:
        if self._idle is None:
            raise SandboxError("local backend is not started (call start() or use 'async with')")
        return await run_batch(batch, compile_fn=self.compile, run_fn=self.run_one,
                               capacity=self._capacity, program_bytes=self._program_bytes,
                               output_store=self.output_store, backend=self.name, gate=self._gate)
