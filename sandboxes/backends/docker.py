"""The docker backend: the runner agent in a pool of warm, hardened containers.

Why a pool: a cold ``docker run`` costs 0.4-0.8 s here, far more than judging an A+B
solution. Each container starts once and serves runs over a unix socket (see
``docker_pool``); a run costs the agent's fork/exec plus a socket round trip.

Data flow: test-data links are resolved on the host (the containers never see the store)
and travel inline to the agent; the compile step runs once in one container and its
artifact goes to whichever container runs each test (sent once per container, then named
by sha256). Requests and replies are built by ``sandboxes.runner.convert``, the same code
every backend uses, so results mean the same thing under local, docker and lambda.

What a container does not cover: the kernel is shared with the host (no gVisor), and the
agent inside runs as root with six capabilities (CHOWN, DAC_OVERRIDE, FOWNER to set up and
wipe the run's 0700 scratch dir; SETUID, SETGID, KILL to drop each run to its slot's uid
and kill what it leaves). The run itself holds no capability: setuid to a non-zero uid
clears them, and no-new-privileges stops setuid binaries from giving any back. Running the
whole container as nobody instead would let the submission signal or ptrace the agent
(same uid) and forge its replies.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os

from pydantic import BaseModel, ConfigDict, Field

from sandboxes.backends.base import SandboxBackend, SandboxError
from sandboxes.backends.cpu_pin import slot_cpus
from sandboxes.backends.docker_pool import AgentError, AgentLost, ArtifactEvicted, ContainerPool, PoolSpec
from sandboxes.backends.local import UidLease
from sandboxes.backends.selftest import run_selftests
from sandboxes.backends.slot_queue import PriorityGate
from sandboxes.runner import batching, convert
from sandboxes.types import Artifact, Batch, BatchResult, CompileResult, RunResult, RunSpec, Source, Status

log = logging.getLogger(__name__)


class DockerBackendConfig(BaseModel):
    """Options of the docker backend (``sandboxes.backends.registry`` passes them through)."""

    model_config = ConfigDict(extra="forbid")

    image: str | None = Field(
        None, description="Sandbox image; None: oubliette-sandbox:<hash of this checkout>, "
                          "built from the base image if missing.")
    pool_size: int | None = Field(None, ge=1, le=256, description="Warm containers; None: CPU cores.")
    container_memory_mb: int = Field(
        1024, ge=64, le=65536, description="cgroup memory cap of a container (agent + one run), no swap.")
    scratch_mb: int = Field(256, ge=16, le=65536, description="Size cap of the /sandbox scratch tmpfs.")
    shm_mb: int = Field(16, ge=1, le=4096, description="Size of the container's /dev/shm.")
    pids_limit: int = Field(512, ge=16, le=65536, description="Processes + threads in a container.")
    cpus: float | None = Field(None, gt=0, le=256, description="CPU share of a container (None: no cap).")
    uid_base: int = Field(
        62000, ge=1000, le=2**31 - 4096,
        description="Run uids are leased from uid_base..uid_base+999, one per slot, host-wide "
                    "(RLIMIT_NPROC counts per uid across containers; the local backend uses 61000+).")
    lock_dir: str = Field("/run/oubliette-sandbox", description="Where uid leases are flock()ed.")
    selftest: bool = Field(True, description="Run every language's self-test at start.")
    start_timeout_s: float = Field(30.0, gt=0, le=600, description="Container start to agent hello.")
    reply_margin_s: float = Field(
        15.0, gt=0, le=600, description="Extra wait beyond a step's wall limit before the agent counts as hung.")
    build_image: bool = Field(True, description="Build the top image layer when missing (seconds).")
    cgroups: bool = Field(True, description="A cgroup per run (CPU/memory of the whole tree, pids) "
                                            "where the host allows; else the rlimit fallback.")
    require_cgroup: bool = Field(False, description="Refuse to start without a cgroup per run.")
    python_fork_server: bool = Field(
        True, description="Run Python tests as forks of a started interpreter in each container "
                          "(sandboxes/runner/pyfork.py); False: exec python3 per test.")
    pin_cpus: bool = Field(
        True, description="Each container's agent and runs on a core of their own, where the engine "
                          "has at least as many CPUs as containers (sandboxes/backends/cpu_pin.py).")


class DockerBackend(SandboxBackend):
    name = "docker"

    def __init__(self, config: DockerBackendConfig | None = None, *, resolver=None,
                 output_store=None, **options):
        """``resolver``: anything with ``get(link) -> bytes`` (a BlobStore) for linked blobs;
        ``output_store``: anything with ``put(bytes) -> (link, new)`` for ``output_to_store``.

        ``options`` are DockerBackendConfig fields, for callers that pass a flat dict.
        """
        if config is not None and options:
            raise TypeError("pass either config or keyword options, not both")
        self.config = config or DockerBackendConfig(**options)
        self.resolver = convert.BlobResolver(resolver)
        self.output_store = output_store if output_store is not None else (
            resolver if hasattr(resolver, "put") else None)
        self.pool: ContainerPool | None = None
        self._start_lock: asyncio.Lock | None = None  # made in the loop that starts us
        self._leases: list = []
        self._size = self.config.pool_size or os.cpu_count() or 1
        self._gate = PriorityGate(self._size)  # batches share the pool oldest first
        self._client = None
        self._code_objects = convert.CodeObjects()

    @property
    def capacity(self) -> int:
        return self._size

    async def start(self) -> None:
        # Starts that come together (an embedded client's first calls) make one pool, not two.
        if self._start_lock is None:
            self._start_lock = asyncio.Lock()
        async with self._start_lock:
            if self.pool is None:
                await self._start()

    async def _start(self) -> None:
        try:
            import docker
            self._client = docker.from_env(timeout=120)
            image = self.config.image or await asyncio.to_thread(self._ensure_image)
            self._leases = [UidLease(self.config.lock_dir, self.config.uid_base) for _ in range(self._size)]
            spec = PoolSpec(image=image, size=self._size, memory_mb=self.config.container_memory_mb,
                            scratch_mb=self.config.scratch_mb, shm_mb=self.config.shm_mb,
                            pids_limit=self.config.pids_limit, cpus=self.config.cpus,
                            uids=[lease.uid for lease in self._leases],
                            start_timeout_s=self.config.start_timeout_s, cgroups=self.config.cgroups,
                            python_fork_server=self.config.python_fork_server)
            info = await asyncio.to_thread(self._client.info)
            driver = info.get("CgroupDriver", "?")
            # The engine's CPUs (the same as ours for a local engine).
            spec.slot_cpus = slot_cpus(self._size, self.config.pin_cpus,
                                       list(range(info.get("NCPU") or 0)) or None)
            if spec.cgroups and driver != "cgroupfs":
                # --cgroup-parent is a path only with the cgroupfs driver (systemd wants a slice).
                spec.cgroups = False
                log.warning("docker uses the %s cgroup driver: no cgroup per run (rlimit fallback)", driver)
            pool = ContainerPool(self._client, spec)
            await pool.start()
            if self.config.require_cgroup and pool.accounting == "rlimit":
                await pool.close()
                raise SandboxError(f"docker backend: no per-run cgroup possible: {pool.accounting_note}")
        except BaseException as e:
            self._release_leases()
            if self._client is not None:
                self._client.close()
                self._client = None
            if isinstance(e, SandboxError) or not isinstance(e, Exception):
                raise
            raise SandboxError(f"docker backend could not start: {e}") from e
        self.pool = pool
        if self.config.selftest:
            try:
                await run_selftests(self)
            except BaseException:
                await self.close()
                raise

    def _ensure_image(self) -> str:
        from sandboxes.backends import docker_image
        try:
            return docker_image.ensure_sandbox(self._client, build=self.config.build_image)
        except docker_image.ImageError as e:
            raise SandboxError(str(e)) from e

    @property
    def accounting(self) -> str:
        """How runs are accounted: cgroup-v1 / cgroup-v2 (a group per run) or rlimit."""
        return self.pool.accounting if self.pool is not None else "rlimit"

    @property
    def run_uids(self) -> list[int]:
        """The uids runs execute as (one per container slot, leased host-wide)."""
        return [lease.uid for lease in self._leases]

    def _release_leases(self) -> None:
        for lease in self._leases:
            lease.release()
        self._leases = []

    async def close(self) -> None:
        if self.pool is not None:
            pool, self.pool = self.pool, None
            await pool.close()
        if self._client is not None:
            self._client.close()
            self._client = None
        self._release_leases()

    # -- one batch (semantics in sandboxes.runner.batching, shared by every backend) ------
    async def run_batch(self, batch: Batch) -> BatchResult:
        if self.pool is None:
            raise SandboxError("docker backend is not started")
        return await batching.run_batch(
            batch, compile_fn=self._compile, run_fn=self._run, capacity=self.capacity,
            program_bytes=self._program_bytes, output_store=self.output_store, backend=self.name,
            gate=self._gate)

    async def _program_bytes(self, artifact: Artifact) -> bytes:
        if artifact.blob.data is not None:
            return artifact.blob.data
        return await asyncio.to_thread(self.resolver.data, artifact.blob)

    async def _compile(self, src: Source) -> CompileResult:
        timeout = src.compile_limits.wall_time_s + self.config.reply_margin_s
        for attempt in range(2):
            slot = await self.pool.acquire()
            try:
                reply = await slot.conn.request(convert.compile_request(src), timeout)
            except AgentError as e:
                await self.pool.discard(slot, str(e))
                if isinstance(e, AgentLost) and attempt == 0:
                    continue  # its container died under us: once more, on another one
                return CompileResult(status=Status.IE, log=f"sandbox error: {e}")
            except BaseException:
                await self.pool.discard(slot, "cancelled mid-request")
                raise
            art = reply.get("artifact")
            if art:
                slot.artifacts.add(art["sha256"])
                self._code_objects.note(reply)
            self.pool.release_later(slot, *_reset_verdict(reply))
            return convert.compile_result(reply)
        raise AssertionError("unreachable")

    async def _run(self, artifact: Artifact, program: bytes, spec: RunSpec) -> RunResult:
        """One run on one container. A container that dies under a run (connection lost)
        is replaced and the run retried once elsewhere; anything else is IE for this run."""
        timeout = spec.limits.wall_time_s + self.config.reply_margin_s
        sha = hashlib.sha256(program).hexdigest()
        for attempt in range(2):
            slot = await self.pool.acquire()
            try:
                try:
                    if self.resolver.all_kept(convert.linked_blobs(spec)):  # nothing to read: no thread hop
                        req = self._request(spec, artifact, program, sha in slot.artifacts)
                    else:
                        req = await asyncio.to_thread(self._request, spec, artifact, program, sha in slot.artifacts)
                except Exception as e:  # a missing or corrupted test blob: our failure, not the code's
                    await self.pool.release(slot, ok=True)
                    return convert.ie_result(spec.id, f"cannot resolve run inputs: {e}")
                try:
                    reply = await slot.conn.request(req, timeout)
                except ArtifactEvicted:  # the agent's LRU dropped it: send the bytes again
                    req["program"] = convert.program_ref(artifact, program, with_data=True,
                                                         code_objects=self._code_objects)
                    reply = await slot.conn.request(req, timeout)
            except AgentError as e:
                await self.pool.discard(slot, str(e))
                if isinstance(e, AgentLost) and attempt == 0:
                    continue
                return convert.ie_result(spec.id, f"sandbox error: {e}")
            except BaseException:
                await self.pool.discard(slot, "cancelled mid-request")
                raise
            slot.artifacts.add(sha)
            slot.runs += 1
            # The result goes back now; the slot is checked and rejoins the pool meanwhile.
            self.pool.release_later(slot, *_reset_verdict(reply))
            return convert.run_result(spec.id, reply)
        raise AssertionError("unreachable")

    def _request(self, spec: RunSpec, artifact: Artifact, program: bytes, held: bool) -> dict:
        return convert.run_request(spec, convert.program_ref(artifact, program, with_data=not held,
                                                       code_objects=self._code_objects),
                                   self.resolver, [])


def _reset_verdict(reply: dict) -> tuple[bool, str]:
    """(ok, why) for ``ContainerPool.release``: the agent's own check after the run found
    nothing left (``leftover``: what survived its clean-up, e.g. a SysV segment)."""
    left = reply.get("leftover")
    return (not left, f"reset failed: agent's clean-up left {'; '.join(left)}" if left else "")
