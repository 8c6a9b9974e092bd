"""A pool of warm sandbox containers, each holding one runner agent.

Each container runs ``sandboxes.runner.agent --listen /ipc/agent.sock`` as its main
process. ``/ipc`` is a host directory (mode 0700, root) bind-mounted into that container
only, so the host talks to the agent over a plain unix socket: no ``docker exec``, no
stream multiplexing through dockerd, about 0.1 ms a round trip.

Checkout discipline (go-judge ``env/pool``): ``release(slot, ok)`` puts a container back
only when the last exchange was clean AND a reset check passes: the agent's own check
after the run found nothing left (no process of the run uid, no SysV shm/msg/sem object
in the container's IPC namespace, which the host cannot read; ``leftover`` in its reply),
the container's cgroup holds no process but the agent, and the scratch tmpfs, /dev/shm
and /dev/mqueue are empty (read from the host through ``/proc/<agent pid>/root``). Anything else destroys the container
(``docker rm -f`` kills every process in it) and starts a replacement in the background.

Accounting (``PoolSpec.cgroups``): each container is started with ``--cgroup-parent``
``/<pool tree>/slot-<n>`` (same path in every v1 hierarchy, or in the v2 tree) and the
host binds that slot's ``runs`` dir writable into it at ``/run/oubliette-cgroup/<key>``;
the agent makes one group per run there. The slot's memory and pids limits cover the
container and its runs together. The reset check also requires ``runs`` to hold no run
group and no process.

Hardening of every container (see ``DockerBackendConfig`` for the sizes): network none,
read-only root, tmpfs scratch with a size cap, a small /dev/shm, cap-drop ALL plus only
what the root agent needs (CHOWN, DAC_OVERRIDE, FOWNER: make, fill and wipe the run's
0700 scratch dir owned by the run uid; SETUID, SETGID: drop each run to its slot's uid;
KILL: kill that uid's processes), no-new-privileges, memory (no swap) and pids limits.
The run holds none of these: setuid to a non-zero uid clears every capability.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import shutil
import socket
import struct
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from sandboxes.backends.cgroup_host import CgroupTree
from sandboxes.backends.slot_queue import SlotQueue
from sandboxes.backends.tmpfs_caps import TmpfsCapError, cap_files
from sandboxes.runner.pch import IMAGE_PCH_ROOT
from sandboxes.runner.cgroup import CgroupDirs, read_text
from sandboxes.runner.limits import SCRATCH_INODES, SHM_INODES
from sandboxes.runner.protocol import Channel, ProtocolError

log = logging.getLogger(__name__)

_MAX_FRAME = 1 << 30
_AGENT_CAPS = ["CHOWN", "DAC_OVERRIDE", "FOWNER", "SETUID", "SETGID", "KILL"]
POOL_LABEL = "org.oubliette.pool"  # value: "<owner pid>-<start ms>"
HOST_LABEL = "org.oubliette.host"  # the owner's hostname: pids mean something only there


class AgentError(Exception):
    """The agent answered with an error, hung, or its connection broke: the slot is unusable."""


class AgentLost(AgentError):
    """The connection broke (the agent or its container died): safe to retry elsewhere."""


class ArtifactEvicted(AgentError):
    """The agent no longer holds a program it was sent (LRU): resend it; the slot is fine."""


class AgentConnection:
    """Length-prefixed JSON frames over a unix socket (sandboxes/runner/PROTOCOL.md)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self._reader, self._writer = reader, writer
        self._ids = itertools.count(1)
        self.deferred_reset = False  # negotiated in hello: a ready frame follows compile/run replies
        self.ready_pending = False

    async def _frame(self, timeout_s: float) -> dict:
        async with asyncio.timeout(timeout_s):  # no task per read, unlike wait_for
            head = await self._reader.readexactly(4)
            (n,) = struct.unpack(">I", head)
            if n > _MAX_FRAME:
                raise AgentError(f"agent sent a frame of {n} bytes")
            body = await self._reader.readexactly(n)
            obj = json.loads(body)
            if isinstance(obj, dict) and "raw" in obj:  # a run's output, raw after the JSON
                try:
                    n = Channel.raw_length(obj)
                except ProtocolError as e:
                    raise AgentError(str(e)) from None
                Channel.attach_raw(obj, await self._reader.readexactly(n) if n else b"")
        return obj

    async def settle(self, timeout_s: float = 30.0) -> list[str]:
        """Wait for the agent's reset after the last compile/run; what it left over ([] clean)."""
        if not self.ready_pending:
            return []
        self.ready_pending = False
        try:
            ready = await self._frame(timeout_s)
        except asyncio.TimeoutError as e:
            raise AgentError(f"agent did not finish its reset within {timeout_s:.1f} s") from e
        except (asyncio.IncompleteReadError, ConnectionError, OSError) as e:
            raise AgentLost(f"agent connection lost during its reset: {e!r}") from e
        except ValueError as e:
            raise AgentError(f"agent sent a malformed frame: {e}") from e
        if not isinstance(ready, dict) or not ready.get("ready"):
            raise AgentError(f"agent sent {str(ready)[:200]} instead of its reset frame")
        return list(ready.get("leftover") or [])

    async def request(self, op: dict, timeout_s: float) -> dict:
        left = await self.settle()  # normally already read by the pool's release
        if left:
            raise AgentError(f"reset failed: agent's clean-up left {'; '.join(left)}")
        rid = next(self._ids)
        body = json.dumps({**op, "id": rid}, separators=(",", ":")).encode()
        try:
            self._writer.write(struct.pack(">I", len(body)) + body)
            async with asyncio.timeout(timeout_s):
                await self._writer.drain()
            reply = await self._frame(timeout_s)
        except asyncio.TimeoutError as e:
            raise AgentError(f"agent did not answer {op.get('op')!r} within {timeout_s:.1f} s") from e
        except (asyncio.IncompleteReadError, ConnectionError, OSError) as e:
            raise AgentLost(f"agent connection lost during {op.get('op')!r}: {e!r}") from e
        except ValueError as e:
            raise AgentError(f"agent sent a malformed frame: {e}") from e
        if not isinstance(reply, dict) or reply.get("id") != rid:
            raise AgentError(f"agent reply does not match request {rid}: {str(reply)[:200]}")
        if self.deferred_reset and op.get("op") in ("compile", "run"):
            self.ready_pending = True
        if "error" in reply:
            if reply.get("code") == "artifact_missing":
                raise ArtifactEvicted(reply["error"])
            raise AgentError(f"agent error ({reply.get('code', '?')}): {reply['error']}")
        return reply

    def alive(self) -> bool:
        return not self._reader.at_eof() and not self._writer.is_closing()

    def close(self) -> None:
        self._writer.close()


def _run_group_pids(runs: CgroupDirs) -> list[int]:
    """Processes in the slot's run groups (the agent keeps one spare group and removes the
    last one after its reply, so groups may exist; processes in them may not)."""
    found = []
    for path in runs.dirs.values():
        for name in ["", *(n for n in os.listdir(path) if n.startswith("run-"))]:
            try:
                found += [int(p) for p in Path(path, name, "cgroup.procs").read_text().split()]
            except (FileNotFoundError, OSError):  # removed while we looked
                pass
    return sorted(set(found))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


@dataclass
class Slot:
    """One warm container and the connection to its agent."""

    index: int
    container_id: str
    name: str
    ipc_dir: Path
    conn: AgentConnection
    agent_pid: int
    run_uid: int
    keep: frozenset[str] = frozenset()  # the agent's own entries in /sandbox (its spawn shim dir)
    runs_cgroup: CgroupDirs | None = None  # host dirs where the agent makes its run groups
    procs_file: str | None = None  # the container group's cgroup.procs ("" none), found once
    artifacts: set[str] = field(default_factory=set)  # sha256s this agent has been sent
    runs: int = 0


@dataclass
class PoolSpec:
    """What a pool's containers look like (filled in from DockerBackendConfig)."""

    image: str
    size: int
    memory_mb: int
    scratch_mb: int
    shm_mb: int
    pids_limit: int
    cpus: float | None
    uids: list[int]  # slot i runs code as uids[i]
    start_timeout_s: float
    ipc_root: Path | None = None
    cgroups: bool = True  # a cgroup per run (when the host allows: see ContainerPool.accounting)
    python_fork_server: bool = True  # Python tests as forks of a zygote (sandboxes/runner/pyfork.py)
    slot_cpus: list[int | None] = field(default_factory=list)  # slot i's core (cpu_pin); None/absent: free


class ContainerPool:
    def __init__(self, client, spec: PoolSpec):
        self._client = client
        self.spec = spec
        self.pool_id = f"{os.getpid()}-{int(time.time() * 1000) % 10**9}"
        self._idle: SlotQueue[Slot] = SlotQueue()
        self._pending: set[asyncio.Task] = set()
        self._ipc_root = Path(tempfile.mkdtemp(prefix="oubliette-docker-", dir=spec.ipc_root))
        os.chmod(self._ipc_root, 0o700)
        self._closed = False
        self.replaced = 0  # containers destroyed and replaced (tests read it)
        self.created = 0
        self.last_destroy_reason = ""
        self._procfs_ok = True
        self._cgroups: CgroupTree | None = None
        self.accounting, self.accounting_note = "rlimit", "cgroups disabled (configuration or docker's cgroup driver)"

    def _setup_cgroups(self) -> None:
        if not self.spec.cgroups:
            return
        self._cgroups = CgroupTree.create(f"oubliette-docker-{self.pool_id}", at_root=True)
        if self._cgroups is None:
            self.accounting_note = CgroupTree.reason
            log.warning("docker pool without cgroups per run (%s): rlimit fallback", CgroupTree.reason)
        else:
            self.accounting, self.accounting_note = self._cgroups.label, ""

    # -- lifecycle -----------------------------------------------------------------
    async def start(self) -> None:
        await asyncio.to_thread(self._reap_orphans)
        await asyncio.to_thread(self._setup_cgroups)
        results = await asyncio.gather(*(self._create(i) for i in range(self.spec.size)),
                                       return_exceptions=True)
        errors = [r for r in results if isinstance(r, BaseException)]
        for r in results:
            if isinstance(r, Slot):
                self._idle.put_nowait(r)
        if errors:
            await self.close()
            raise errors[0]

    async def close(self) -> None:
        self._closed = True
        for t in list(self._pending):
            t.cancel()
        await asyncio.gather(*self._pending, return_exceptions=True)
        await asyncio.to_thread(self._remove_labelled)
        shutil.rmtree(self._ipc_root, ignore_errors=True)
        if self._cgroups is not None:
            await asyncio.to_thread(self._cgroups.close)

    def _reap_orphans(self) -> None:
        """Remove containers left by pools whose process is gone (a crashed verifier)."""
        for c in self._client.containers.list(all=True, filters={"label": POOL_LABEL}):
            owner = c.labels.get(POOL_LABEL, "").split("-", 1)[0]
            mine = c.labels.get(HOST_LABEL) == socket.gethostname()
            if mine and owner.isdigit() and not _pid_alive(int(owner)):
                log.warning("removing %s, left by dead process %s", c.name, owner)
                try:
                    c.remove(force=True)
                except Exception as e:
                    log.debug("removing %s: %r", c.name, e)

    def _remove_labelled(self) -> None:
        for c in self._client.containers.list(all=True, filters={"label": f"{POOL_LABEL}={self.pool_id}"}):
            try:
                c.remove(force=True)
            except Exception as e:  # already gone
                log.debug("removing %s: %r", c.name, e)

    # -- checkout --------------------------------------------------------------------
    async def acquire(self) -> Slot:
        """An idle slot whose agent is alive (a container that died while idle is replaced)."""
        while True:
            if self._closed:
                raise AgentError("the container pool is closed")
            slot = await self._idle.get()
            if slot.conn.alive() and _pid_alive(slot.agent_pid):
                return slot
            await self.discard(slot, "agent died while idle")

    def release_later(self, slot: Slot, ok: bool, why: str = "") -> None:
        """``release`` off the caller's path: its result goes back now, the slot rejoins
        the pool (or is destroyed) once checked. The check is never skipped, only not waited for."""
        task = asyncio.create_task(self.release(slot, ok, why))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def release(self, slot: Slot, ok: bool, why: str = "") -> None:
        """Keep the slot only if its last exchange was clean and the reset check passes."""
        if ok and not self._closed:
            try:  # the agent's own reset and check come first (after its reply)
                left = await slot.conn.settle()
            except AgentError as e:
                left = [str(e)]
            if left:
                ok, why = False, f"reset failed: agent's clean-up left {'; '.join(left)}"
        if ok and not self._closed:
            # Inline, not in a thread: a handful of procfs/cgroupfs reads never wait for a
            # disk, and a thread hop per run cost more than the reads (about 0.5 ms a run).
            dirty = self.reset_check(slot)
            if dirty is None:
                self._idle.put_nowait(slot)
                return
            why = f"reset failed: {dirty}"
        await self.discard(slot, why)

    async def discard(self, slot: Slot, why: str) -> None:
        if self._closed and not why:  # a release that finished after close(): not a failure
            slot.conn.close()
            await asyncio.to_thread(self._destroy, slot)
            return
        log.warning("destroying sandbox container %s: %s", slot.name, why)
        self.last_destroy_reason = why
        slot.conn.close()
        await asyncio.to_thread(self._destroy, slot)
        if not self._closed:
            self.replaced += 1
            task = asyncio.create_task(self._replace(slot.index))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)

    async def _replace(self, index: int) -> None:
        delay = 0.5
        while not self._closed:
            try:
                self._idle.put_nowait(await self._create(index))
                return
            except Exception as e:  # engine busy or failing: keep trying, slowly
                log.error("replacing sandbox container %d failed: %r", index, e)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 10.0)

    def reset_check(self, slot: Slot) -> str | None:
        """None if the container is clean; else what is left over (read via the host's /proc)."""
        if not self._procfs_ok:
            return None
        root = Path(f"/proc/{slot.agent_pid}/root")
        try:
            if not self._only_agent_tasks(slot):
                procs = self._container_pids(slot)
                extra = set() if procs is None else procs - {slot.agent_pid} - _agent_helpers(slot.agent_pid)
                if extra:
                    return f"processes other than the agent remain: {sorted(extra)}"
                if slot.runs_cgroup is not None:
                    left = _run_group_pids(slot.runs_cgroup)
                    if left:
                        return f"processes left in run cgroups: {left[:5]}"
            for d in ("sandbox", "dev/shm", "dev/mqueue"):
                left = [n for n in os.listdir(root / d) if not (d == "sandbox" and n in slot.keep)]
                if left:
                    return f"/{d} not empty: {sorted(left)[:5]}"
        except PermissionError:
            log.warning("no access to /proc/<pid>/root: reset checks are limited to agent replies")
            self._procfs_ok = False
        except FileNotFoundError as e:
            return f"container gone: {e}"
        return None

    @staticmethod
    def _only_agent_tasks(slot: Slot) -> bool:
        """The quick form of the process check: the slot group's ``pids.current`` counts
        every task of the container and of its run groups (the slot group holds both), so
        if it equals the agent plus its root helpers, nothing else lives anywhere in there.
        One read instead of a cgroup.procs per hierarchy and run group (0.2-0.5 ms a run);
        any other count (or no cgroups) falls back to the full listing, which names what is left."""
        if slot.runs_cgroup is None:
            return False
        key = "unified" if slot.runs_cgroup.version == 2 else "pids"
        try:
            current = int(read_text(os.path.join(os.path.dirname(slot.runs_cgroup.dirs[key]), "pids.current")))
        except (OSError, ValueError, KeyError):
            return False
        return current == 1 + len(_agent_helpers(slot.agent_pid))

    @staticmethod
    def _container_pids(slot: Slot) -> set[int] | None:
        """Pids in the agent's cgroup (v1 pids controller, or the v2 unified hierarchy)."""
        if slot.procs_file is None:
            slot.procs_file = _procs_file(slot.agent_pid) or ""
        if not slot.procs_file:
            return None
        return {int(p) for p in Path(slot.procs_file).read_text().split()}


    # -- containers ----------------------------------------------------------------------
    async def _create(self, index: int) -> Slot:
        spec = self.spec
        run_uid = spec.uids[index]
        self.created += 1
        name = f"oubliette-sbx-{self.pool_id}-{index}-{self.created}"
        ipc = self._ipc_root / name
        ipc.mkdir(mode=0o700)
        runs = await asyncio.to_thread(self._slot_cgroup, index)
        container = await asyncio.to_thread(self._run_container, name, ipc, run_uid, index, runs)
        try:
            conn, pid, hello = await self._connect(container, ipc)
            if hello.get("accounting", "rlimit") != self.accounting:  # older agents: rlimit
                raise AgentError(f"agent in {name} accounts runs by {hello.get('accounting')!r}, "
                                 f"expected {self.accounting!r}")
            # The engine's /dev/shm has a size (shm_size) and no file cap: set one, as local does
            # (the scratch tmpfs gets its nr_inodes from the tmpfs option below).
            try:
                await asyncio.to_thread(cap_files, pid, [("/dev/shm", spec.shm_mb << 20, SHM_INODES)])
            except TmpfsCapError as exc:
                raise AgentError(f"{name}: {exc}") from None
        except BaseException:
            await asyncio.to_thread(self._destroy_container, container.id, ipc)
            raise
        # The agent's private 0700 dir beside the boxes (sandboxes/runner/core.py).
        keep = frozenset({f".runner-{hello.get('pid')}"})
        return Slot(index=index, container_id=container.id, name=name, ipc_dir=ipc, conn=conn,
                    agent_pid=pid, run_uid=run_uid, keep=keep, runs_cgroup=runs)

    def _slot_cgroup(self, index: int) -> CgroupDirs | None:
        """Fresh ``slot-<index>`` (limits for container + runs) with an empty ``runs`` below it."""
        if self._cgroups is None:
            return None
        slot = self._cgroups.slot(f"slot-{index}", memory_bytes=self.spec.memory_mb << 20,
                                  max_pids=self.spec.pids_limit)
        runs = {}
        for key, path in slot.dirs.items():
            runs[key] = os.path.join(path, "runs")
            os.mkdir(runs[key], 0o755)
            if slot.version == 2:
                Path(runs[key], "cgroup.subtree_control").write_text("+memory +pids")
        return CgroupDirs(slot.version, runs)

    def _run_container(self, name: str, ipc: Path, run_uid: int, index: int, runs: CgroupDirs | None):
        spec = self.spec
        agent = ["/usr/bin/env", "PYTHONPATH=/opt/oubliette", "/usr/bin/python3", "-S",
                 "-m", "sandboxes.runner.agent", "--listen", "/ipc/agent.sock",
                 "--scratch-root", "/sandbox", "--run-uid", str(run_uid), "--run-gid", str(run_uid),
                 "--wipe", "/dev/shm", "--clear-ipc", "--pch-root", IMAGE_PCH_ROOT]
        if not spec.python_fork_server:
            agent += ["--python-fork-server", "off"]
        cpu = spec.slot_cpus[index] if index < len(spec.slot_cpus) else None
        if cpu is not None:
            agent += ["--cpu", str(cpu)]
        kwargs = {}
        if spec.cpus:
            kwargs["nano_cpus"] = int(spec.cpus * 1e9)
        volumes = {str(ipc): {"bind": "/ipc", "mode": "rw"}}
        if runs is not None:
            kwargs["cgroup_parent"] = f"/{self._cgroups.name}/slot-{index}"
            for key, host in runs.dirs.items():
                volumes[host] = {"bind": f"/run/oubliette-cgroup/{key}", "mode": "rw"}
                agent += ["--cgroup", f"{key}=/run/oubliette-cgroup/{key}"]
        return self._client.containers.run(
            spec.image, entrypoint=agent, command=[], name=name, detach=True,
            labels={POOL_LABEL: self.pool_id, HOST_LABEL: socket.gethostname()}, user="0:0", working_dir="/sandbox",
            network_mode="none", read_only=True,
            # The scratch root. Not /tmp: Docker copies the image dir's mode onto a tmpfs, and
            # /tmp's 1777 would let a run write outside its box. /tmp stays read-only; the
            # runner points TMPDIR at each run's own box.
            tmpfs={"/sandbox": f"rw,exec,nosuid,nodev,size={spec.scratch_mb}m,nr_inodes={SCRATCH_INODES},mode=0755"},
            shm_size=f"{spec.shm_mb}m",
            volumes=volumes,
            cap_drop=["ALL"], cap_add=_AGENT_CAPS, security_opt=["no-new-privileges"],
            mem_limit=f"{spec.memory_mb}m", memswap_limit=f"{spec.memory_mb}m",
            pids_limit=spec.pids_limit, ipc_mode="private", init=False, **kwargs)

    async def _connect(self, container, ipc: Path) -> tuple[AgentConnection, int, dict]:
        sock = ipc / "agent.sock"
        deadline = time.monotonic() + self.spec.start_timeout_s
        while True:
            if sock.exists():
                try:
                    reader, writer = await asyncio.open_unix_connection(str(sock), limit=1 << 20)
                    break
                except (ConnectionRefusedError, FileNotFoundError):
                    pass
            if time.monotonic() > deadline:
                logs = await asyncio.to_thread(self._logs, container)
                raise AgentError(f"agent in {container.name} did not listen within "
                                 f"{self.spec.start_timeout_s:.0f} s; container log:\n{logs}")
            await asyncio.sleep(0.02)
        conn = AgentConnection(reader, writer)
        hello = await conn.request({"op": "hello", "reset_after_reply": True, "raw_output": True},
                                   timeout_s=self.spec.start_timeout_s)
        conn.deferred_reset = bool(hello.get("reset_after_reply"))
        if hello.get("protocol") != 1:
            raise AgentError(f"agent speaks protocol {hello.get('protocol')!r}, expected 1")
        await asyncio.to_thread(container.reload)
        return conn, int(container.attrs["State"]["Pid"]), hello

    @staticmethod
    def _logs(container) -> str:
        try:
            container.reload()
            return f"[{container.status}] " + container.logs(tail=30).decode(errors="replace")
        except Exception as e:
            return repr(e)

    def _destroy(self, slot: Slot) -> None:
        self._destroy_container(slot.container_id, slot.ipc_dir)

    def _destroy_container(self, container_id: str, ipc: Path) -> None:
        try:
            self._client.api.remove_container(container_id, force=True)
        except Exception as e:
            log.debug("remove %s: %r", container_id, e)
        shutil.rmtree(ipc, ignore_errors=True)

    # -- introspection for tests and stats ----------------------------------------------
    @property
    def idle_count(self) -> int:
        return self._idle.qsize()


def _procs_file(agent_pid: int) -> str | None:
    """The ``cgroup.procs`` file of the agent's own group (it does not move: read once)."""
    for line in Path(f"/proc/{agent_pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        base = None
        if "pids" in controllers.split(","):
            base = Path("/sys/fs/cgroup/pids") / path.lstrip("/")
        elif controllers == "" and Path("/sys/fs/cgroup/cgroup.controllers").exists():
            base = Path("/sys/fs/cgroup") / path.lstrip("/")
        if base is not None and (base / "cgroup.procs").exists():
            return str(base / "cgroup.procs")
    return None


def _agent_helpers(agent_pid: int) -> set[int]:
    """The agent's own long-lived helpers: its direct children that run as root (the spawn
    server, spawn_shim --serve; the Python zygote, sandboxes/runner/zygote.py). A run's process has the run uid and can never be root, and
    one re-parented to the agent (an orphan) therefore does not count as a helper."""
    try:
        kids = [int(p) for p in read_text(f"/proc/{agent_pid}/task/{agent_pid}/children").split()]
    except (OSError, ValueError):
        return set()
    out = set()
    for pid in kids:
        try:  # the real uid from status: /proc/<pid> of a non-dumpable process is root's
            status = read_text(f"/proc/{pid}/status")
        except OSError:
            continue
        at = status.find("\nUid:")
        uid = status[at + 5:].split(None, 1)[:1] if at >= 0 else []
        if uid == ["0"]:
            out.add(pid)
    return out
