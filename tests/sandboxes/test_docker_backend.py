"""The docker backend against the real Docker engine: pool, hardening, reset-or-destroy.

Verdict classes and security claims are covered for docker by the shared suites
(test_consistency.py, tests/security) through ``backend_options.py``; here are the
things only this backend has: the warm pool, the flags on each container, and the rule
that a container goes back to the pool only after a reset check passed.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from pathlib import Path

import pytest

from sandboxes.backends.docker import DockerBackend
from sandboxes.backends.docker_pool import POOL_LABEL
from sandboxes.types import Batch, Blob, RunLimits, RunSpec, Source, Status

pytestmark = pytest.mark.docker
APLUSB = "a, b = map(int, input().split())\nprint(a + b)\n"


def aplusb(n: int) -> Batch:
    return Batch(program=Source(language="python", code=APLUSB),
                 runs=[RunSpec(id=str(i), stdin=Blob(data=f"{i} 1\n".encode())) for i in range(n)])


async def wait_for(pred, timeout_s: float = 60.0) -> None:
    """Poll a condition (container starts take seconds on a loaded host); fail at the deadline."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not pred():
        assert loop.time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.05)


def containers(be: DockerBackend):
    return be._client.containers.list(all=True, filters={"label": f"{POOL_LABEL}={be.pool.pool_id}"})


@pytest.fixture
async def be():
    backend = DockerBackend(pool_size=2, selftest=False, container_memory_mb=512, pids_limit=300, scratch_mb=64)
    await backend.start()
    yield backend
    await backend.close()


async def test_pool_warms_up_and_serves_in_parallel(be):
    assert be.capacity == 2 and be.pool.idle_count == 2
    assert len(containers(be)) == 2
    assert len(set(be.run_uids)) == 2, "each slot has its own run uid (RLIMIT_NPROC is per uid)"
    res = await be.run_batch(aplusb(6))
    assert [r.stdout for r in res.runs] == [f"{i + 1}\n".encode() for i in range(6)]
    assert res.backend == "docker"
    # A slot rejoins the pool once its reset is checked, after the result went back.
    await wait_for(lambda: be.pool.idle_count == 2)
    assert be.pool.replaced == 0, "every container went back after a clean reset"


async def test_every_container_carries_the_hardening_flags(be):
    for c in containers(be):
        hc, cfg = c.attrs["HostConfig"], c.attrs["Config"]
        assert hc["NetworkMode"] == "none"
        assert hc["ReadonlyRootfs"] is True
        assert hc["CapDrop"] == ["ALL"]
        assert sorted(hc["CapAdd"]) == ["CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL", "SETGID", "SETUID"]
        assert "no-new-privileges" in hc["SecurityOpt"]
        assert hc["Memory"] == 512 << 20 and hc["MemorySwap"] == 512 << 20, "no swap beyond the cap"
        assert hc["PidsLimit"] == 300
        assert list(hc["Tmpfs"]) == ["/sandbox"], "the scratch tmpfs is the only writable path"
        assert "size=64m" in hc["Tmpfs"]["/sandbox"] and "nosuid" in hc["Tmpfs"]["/sandbox"]
        assert hc["Privileged"] is False and hc["IpcMode"] == "private"
        # The agent's socket directory and, with per-run cgroups, the slot's run-group dirs
        # (cgroupfs, writable by the root agent only): no store, no docker socket.
        mounts = {m["Destination"]: m["Source"] for m in c.attrs["Mounts"]}
        if be.accounting == "cgroup-v1":
            assert sorted(mounts) == ["/ipc", *(f"/run/oubliette-cgroup/{k}"
                                                for k in ("cpuacct", "memory", "pids"))]
            assert all(src.startswith("/sys/fs/cgroup/") and src.endswith("/runs")
                       for dst, src in mounts.items() if dst != "/ipc")
            assert hc["CgroupParent"].startswith("/oubliette-docker-")
        else:
            assert list(mounts) == ["/ipc"] or be.accounting == "cgroup-v2"
        assert cfg["User"] == "0:0" and c.status == "running"
    # ...and the run itself holds no capability and has only loopback.
    code = ("import socket\nst = open('/proc/self/status').read()\n"
            "print([l for l in st.splitlines() if l.startswith(('CapEff', 'CapPrm', 'NoNewPrivs'))],"
            " [n for _, n in socket.if_nameindex()])\n")
    res = await be.run_batch(Batch(program=Source(language="python", code=code), runs=[RunSpec(id="a")]))
    assert res.runs[0].stdout == (b"['CapPrm:\\t0000000000000000', 'CapEff:\\t0000000000000000', "
                                  b"'NoNewPrivs:\\t1'] ['lo']\n"), res.runs[0]


async def test_container_whose_agent_died_is_replaced_and_no_run_is_lost(be):
    victim = be.pool._idle._queue[0]
    os.kill(victim.agent_pid, signal.SIGKILL)  # the agent is the container's pid 1 process
    res = await be.run_batch(aplusb(4))
    assert [r.status for r in res.runs] == [Status.OK] * 4, "the dead container was never handed out"
    assert be.pool.replaced == 1
    await wait_for(lambda: be.pool.idle_count == 2)
    names = {c.name for c in containers(be)}
    assert victim.name not in names and len(names) == 2


async def test_junk_left_in_scratch_destroys_the_container(be):
    slot = be.pool._idle._queue[0]
    # Planted through the host's view of the container's scratch (what a run escaping its
    # box dir would leave): the next reset check finds it.
    Path(f"/proc/{slot.agent_pid}/root/sandbox/junk").write_text("left over")
    res = await be.run_batch(Batch(program=Source(language="python", code="print(1)\n"),
                                   runs=[RunSpec(id=str(i)) for i in range(2)]))
    assert all(r.status == Status.OK for r in res.runs)
    await wait_for(lambda: be.pool.replaced >= 1)
    assert "/sandbox not empty" in be.pool.last_destroy_reason and "junk" in be.pool.last_destroy_reason
    assert slot.name not in {c.name for c in containers(be)}
    await wait_for(lambda: be.pool.idle_count == 2)


async def test_leftover_process_destroys_the_container():
    backend = DockerBackend(pool_size=1, selftest=False)
    await backend.start()
    try:
        pool = backend.pool
        slot = pool._idle._queue[0]
        subprocess.run(["docker", "exec", "-d", slot.container_id, "/bin/sleep", "300"], check=True)
        await wait_for(lambda: len(pool._container_pids(slot) or ()) > 1)  # it really runs in there
        res = await backend.run_batch(Batch(program=Source(language="python", code="print(1)\n"),
                                            runs=[RunSpec(id="a")]))
        assert res.runs[0].status == Status.OK
        await wait_for(lambda: pool.replaced >= 1)
        assert "processes other than the agent" in pool.last_destroy_reason
        assert slot.name not in {c.name for c in containers(backend)}
        await wait_for(lambda: pool.idle_count == 1)
    finally:
        await backend.close()


async def test_hung_agent_is_ie_and_replaced():
    backend = DockerBackend(pool_size=1, selftest=False, reply_margin_s=1.0)
    await backend.start()
    try:
        slot = backend.pool._idle._queue[0]
        os.kill(slot.agent_pid, signal.SIGSTOP)  # alive but never answers
        res = await backend.run_batch(Batch(program=Source(language="python", code="print(1)\n"),
                                            runs=[RunSpec(id="a", limits=RunLimits(wall_time_s=1))]))
        assert res.compile.status == Status.IE and "did not answer" in res.compile.log
        assert res.runs[0].status == Status.IE and res.runs[0].skipped
        assert backend.pool.replaced == 1
        await wait_for(lambda: backend.pool.idle_count == 1)
        ok = await backend.run_batch(aplusb(1))
        assert ok.runs[0].stdout == b"1\n", "the replacement serves the next batch"
    finally:
        await backend.close()


async def test_close_removes_every_container():
    backend = DockerBackend(pool_size=1, selftest=False)
    await backend.start()
    pool_id, client = backend.pool.pool_id, backend._client
    ipc_root = backend.pool._ipc_root
    names = [c.name for c in client.containers.list(all=True, filters={"label": f"{POOL_LABEL}={pool_id}"})]
    assert len(names) == 1
    import docker
    check = docker.from_env()
    await backend.close()
    assert check.containers.list(all=True, filters={"label": f"{POOL_LABEL}={pool_id}"}) == []
    assert not ipc_root.exists()
    check.close()


async def test_containers_of_a_dead_owner_are_reaped_at_start():
    import socket
    import docker
    from sandboxes.backends.docker_pool import HOST_LABEL
    from sandboxes.backends import docker_image
    docker_image.ensure_busybox()
    client = docker.from_env()
    dead_pid = 4_194_999  # above any pid_max: no such process
    orphan = client.containers.run("busybox:latest", ["sleep", "300"], detach=True, labels={
        POOL_LABEL: f"{dead_pid}-1", HOST_LABEL: socket.gethostname()})
    try:
        backend = DockerBackend(pool_size=1, selftest=False)
        await backend.start()
        await backend.close()
        assert orphan.id not in {c.id for c in client.containers.list(all=True)}
    finally:
        try:
            orphan.remove(force=True)
        except docker.errors.NotFound:
            pass
        client.close()


async def test_selftest_runs_every_language_at_start():
    backend = DockerBackend(pool_size=1)
    await backend.start()  # raises SandboxError if any language's A+B fails in the image
    await backend.close()


_ROOT_SHM = ("import ctypes\nlibc = ctypes.CDLL(None)\n"
             "assert libc.shmget(0x0c0ffee, 4096, 0o1000 | 0o600) >= 0\n")


async def test_ipc_object_the_cleanup_cannot_remove_destroys_the_container():
    """The agent's check after a run sees the container's IPC namespace (the host cannot):
    a segment the run uid cannot remove (here: root's, planted by docker exec) fails it."""
    backend = DockerBackend(pool_size=1, selftest=False)
    await backend.start()
    try:
        pool = backend.pool
        slot = pool._idle._queue[0]
        subprocess.run(["docker", "exec", slot.container_id, "/usr/bin/python3", "-c", _ROOT_SHM], check=True)
        res = await backend.run_batch(Batch(program=Source(language="python", code="print(1)\n"),
                                            runs=[RunSpec(id="a")]))
        assert res.runs[0].status == Status.OK, "the run itself is judged normally"
        await wait_for(lambda: pool.replaced >= 1)
        assert "SysV shm" in pool.last_destroy_reason, pool.last_destroy_reason
        assert slot.name not in {c.name for c in containers(backend)}
        await wait_for(lambda: pool.idle_count == 1)
        ok = await backend.run_batch(Batch(program=Source(language="python", code=(
            "print(open('/proc/sysvipc/shm').read().count('\\n'))\n")), runs=[RunSpec(id="b")]))
        assert ok.runs[0].stdout == b"1\n", "the replacement's IPC namespace is empty (header only)"
    finally:
        await backend.close()


async def test_posix_queue_left_in_dev_mqueue_destroys_the_container(be):
    slot = be.pool._idle._queue[0]
    # A queue owned by root (planted from the host): the run uid may not remove it.
    Path(f"/proc/{slot.agent_pid}/root/dev/mqueue/planted").write_text("")
    res = await be.run_batch(Batch(program=Source(language="python", code="print(1)\n"),
                                   runs=[RunSpec(id=str(i)) for i in range(2)]))
    assert all(r.status == Status.OK for r in res.runs)
    await wait_for(lambda: be.pool.replaced >= 1)
    assert "POSIX message queues ['planted']" in be.pool.last_destroy_reason, be.pool.last_destroy_reason
    assert slot.name not in {c.name for c in containers(be)}
    await wait_for(lambda: be.pool.idle_count == 2)
async def test_per_run_cgroups_are_accounted_and_leave_nothing_behind():
    """Runs are counted in the slot's run groups; closing the pool removes every group,
    including the parent copies runc makes in hierarchies we do not use."""
    import glob

    backend = DockerBackend(pool_size=1, selftest=False)
    await backend.start()
    try:
        if backend.accounting == "rlimit":
            pytest.skip(f"no cgroup per run here: {backend.pool.accounting_note}")
        name = backend.pool._cgroups.name
        code = "#include <unistd.h>\nint main(){ if (fork() == 0) for (;;); sleep(30); }\n"
        res = await backend.run_batch(Batch(program=Source(language="c", code=code),
                                            runs=[RunSpec(id="t", limits=RunLimits(cpu_time_s=0.3, wall_time_s=20))]))
        assert res.runs[0].status == Status.TLE and res.runs[0].cpu_time_s >= 0.3, res.runs[0]
        assert glob.glob(f"/sys/fs/cgroup/*/{name}")
    finally:
        await backend.close()
    assert glob.glob(f"/sys/fs/cgroup/*/{name}") == []
