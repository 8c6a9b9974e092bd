"""One slot of the ``local`` backend: a long-lived bubblewrap sandbox holding a runner agent.

``bwrap_argv`` builds the sandbox (namespaces, read-only /usr, minimal /etc, capped tmpfs,
reduced capabilities; see ``sandboxes.backends.local``), ``UidLease`` leases the run uid,
``Slot`` owns the sandbox process and its socket: one request at a time (its lock), the
agent's greeting and the ready frame it sends after each reset.
"""
from __future__ import annotations

import asyncio
import fcntl
import itertools
import logging
import os
import socket
import subprocess
import threading
from collections import OrderedDict
from pathlib import Path

from sandboxes.backends.base import SandboxError
from sandboxes.backends.tmpfs_caps import TmpfsCapError, cap_files
from sandboxes.runner.cgroup import CgroupDirs
from sandboxes.runner.limits import SCRATCH_INODES, SHM_INODES
from sandboxes.runner.protocol import Channel, ProtocolError

log = logging.getLogger(__name__)
_PKG_ROOT = Path(__file__).resolve().parents[2]  # the dir holding sandboxes/
_BOX_PKG = "/opt/oubliette"
_BOX_PCH = "/opt/oubliette-pch"
_ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime",
              "nsswitch.conf", "host.conf")
# What the agent keeps: change uid/gid for runs, chown their scratch, kill them, remove
# their files. No CAP_SYS_ADMIN, no CAP_NET_*, no CAP_SYS_PTRACE.
_AGENT_CAPS = ("CAP_SETUID", "CAP_SETGID", "CAP_CHOWN", "CAP_FOWNER", "CAP_DAC_OVERRIDE", "CAP_KILL")
_HELD_ARTIFACTS = 8  # below the agent's own cache size, so a held sha is really there


class UidLease:
    """An exclusive run uid for one slot, held by flock for this process's lifetime."""

    def __init__(self, lock_dir: str, uid_base: int, span: int = 1000):
        os.makedirs(lock_dir, mode=0o700, exist_ok=True)
        for uid in range(uid_base, uid_base + span):
            fd = os.open(os.path.join(lock_dir, f"uid-{uid}.lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self.uid, self._fd = uid, fd
            return
        raise SandboxError(f"no free run uid in {uid_base}..{uid_base + span - 1} (see {lock_dir})")

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def cgroup_binds(dirs: CgroupDirs | None) -> tuple[list[str], list[str]]:
    """bwrap arguments that bind the slot's cgroup dirs, and the agent's --cgroup arguments.

    Writable for the agent (root, DAC_OVERRIDE) only: the files are root's 0644, so a run
    (another uid) can read its counters but neither change its limits nor leave its group.
    """
    if dirs is None:
        return [], []
    binds, args = [], []
    for key, host in dirs.dirs.items():
        inner = f"/sys/fs/cgroup/{key}"
        binds += ["--bind", host, inner]
        args += ["--cgroup", f"{key}={inner}"]
    return binds, args


def bwrap_argv(bwrap: str, *, uid: int, fd: int, scratch_size_mb: int,
               cgroup: CgroupDirs | None = None, pkg_root: Path = _PKG_ROOT,
               python_fork_server: bool = True, pch_root: str | None = None,
               cpu: int | None = None) -> list[str]:
    """The namespace each slot's agent lives in (see the module docstring for why each part).
    ``cpu``: the core the agent pins itself and its runs to (``cpu_pin``); None: unpinned."""
    argv = [bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--clearenv",
            "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8",
            "--setenv", "PYTHONPATH", _BOX_PKG, "--hostname", "sandbox",
            "--ro-bind", "/usr", "/usr"]
    for top in ("bin", "sbin", "lib", "lib64", "lib32", "libx32"):
        host = Path("/") / top
        if host.is_symlink():
            argv += ["--symlink", os.readlink(host), f"/{top}"]
        elif host.is_dir():
            argv += ["--ro-bind", str(host), f"/{top}"]
    argv += ["--dir", "/etc"]
    for name in _ETC_FILES:
        argv += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    argv += ["--proc", "/proc", "--dev", "/dev",
             "--perms", "0755", "--size", str(scratch_size_mb << 20), "--tmpfs", "/tmp",
             "--perms", "1777", "--size", str(16 << 20), "--tmpfs", "/dev/shm",
             # The slot's POSIX message queues, visible as files so the agent can empty them.
             "--mqueue", "/dev/mqueue"]
    pch_args = []
    if pch_root:  # built on the host by trusted code; read-only to everything in the slot
        # /opt must be 0755 for the run uid's compiler to reach it (bwrap makes parents 0700).
        argv += ["--perms", "0755", "--dir", "/opt", "--ro-bind", pch_root, _BOX_PCH]
        pch_args = ["--pch-root", _BOX_PCH]
    argv += ["--ro-bind", str(pkg_root / "sandboxes"), f"{_BOX_PKG}/sandboxes"]
    cg_binds, cg_args = cgroup_binds(cgroup)
    argv += cg_binds + ["--cap-drop", "ALL"]
    for cap in _AGENT_CAPS:
        argv += ["--cap-add", cap]
    argv += ["--chdir", "/", "/usr/bin/python3", "-S", "-m", "sandboxes.runner.agent",
             "--fd", str(fd), "--scratch-root", "/tmp", "--run-uid", str(uid),
             "--run-gid", str(uid), "--wipe", "/dev/shm", "--clear-ipc", *cg_args, *pch_args]
    if not python_fork_server:
        argv += ["--python-fork-server", "off"]
    if cpu is not None:
        argv += ["--cpu", str(cpu)]
    return argv


async def _send_with_fds(loop, sock: socket.socket, frame: bytes, fds: list[int]) -> None:
    """The frame's first byte carries ``fds`` (SCM_RIGHTS), the rest follows as plain data."""
    while True:
        try:
            sent = socket.send_fds(sock, [frame[:1]], fds)
            break
        except BlockingIOError:
            writable = loop.create_future()
            loop.add_writer(sock.fileno(), lambda: writable.done() or writable.set_result(None))
            try:
                await writable
            finally:
                loop.remove_writer(sock.fileno())
    await loop.sock_sendall(sock, frame[sent:])


def _nonblocking(sock: socket.socket) -> None:
    """Non-blocking for the event loop's reads (the thread path sets a timeout); the ioctl
    only when it is not already so."""
    if sock.gettimeout() != 0.0:
        sock.setblocking(False)


async def _recv_exact(loop, sock: socket.socket, n: int) -> bytearray:
    """``n`` bytes from the (non-blocking) socket. What has arrived is read at once; only
    when nothing is there does it wait on the loop (each wait there costs the loop a reader
    added and removed: about 8 syscalls, and a frame's body and output are normally there
    already once its header is)."""
    buf = bytearray(n)  # read in place: no buffer of n bytes allocated for every chunk
    view, got = memoryview(buf), 0
    while got < n:
        try:
            k = sock.recv_into(view[got:])
        except BlockingIOError:
            k = await loop.sock_recv_into(sock, view[got:])
        if not k:
            raise ProtocolError("peer closed the connection" + (" mid-frame" if got else ""))
        got += k
    return buf


async def _recv_frame(loop, chan: Channel, sock: socket.socket) -> dict:
    """One frame read on the event loop: its JSON, then any raw bytes after it (a run's
    output), which are only copied, never scanned or decoded here."""
    head = await _recv_exact(loop, sock, 4)
    obj = chan.decode(await _recv_exact(loop, sock, chan.frame_length(head)))
    if "raw" in obj:
        n = chan.raw_length(obj)
        chan.attach_raw(obj, await _recv_exact(loop, sock, n) if n else b"")
    return obj


def _first_child(pid: int) -> int | None:
    """bwrap's child: the process in the sandbox's namespaces (bwrap itself stays outside)."""
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                kids = fh.read().split()
            if kids:
                return int(kids[0])
    except OSError:
        return None
    return None


class Slot:
    """One bwrap sandbox + agent. Used by one request at a time."""

    _ids = itertools.count(1)

    def __init__(self, index: int, uid: int, bwrap: str, scratch_size_mb: int,
                 cgroup: CgroupDirs | None = None, pkg_root: Path = _PKG_ROOT,
                 python_fork_server: bool = True, pch_root: str | None = None, cpu: int | None = None):
        self.index, self.uid, self.bwrap, self.scratch_size_mb = index, uid, bwrap, scratch_size_mb
        self.cpu = cpu  # the core this slot's agent and runs are pinned to (None: not pinned)
        self.python_fork_server = python_fork_server
        self.cgroup, self.pkg_root, self.pch_root = cgroup, pkg_root, pch_root
        self.proc: subprocess.Popen | None = None
        self.chan: Channel | None = None
        self.held: OrderedDict[str, None] = OrderedDict()
        self.lock = threading.Lock()
        self.agent_pid: int | None = None
        self.last_kill_reason = ""
        self.deferred_reset = False  # the agent resets after its reply, then sends a ready frame
        self.ready_pending = False
        self.in_use = False  # handed out by the pool (LocalBackend._acquire/_release)

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None and self.chan is not None

    def spawn(self) -> None:
        """Start the sandbox. Call from the event-loop thread (bwrap's parent-death signal
        follows the thread that forked it)."""
        host_end, box_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.proc = subprocess.Popen(
                bwrap_argv(self.bwrap, uid=self.uid, fd=box_end.fileno(), scratch_size_mb=self.scratch_size_mb,
                           cgroup=self.cgroup, pkg_root=self.pkg_root,
                           python_fork_server=self.python_fork_server, pch_root=self.pch_root,
                           cpu=self.cpu),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=None,
                pass_fds=[box_end.fileno()], env={"PATH": "/usr/bin:/bin"}, close_fds=True)
        finally:
            box_end.close()
        self.chan = Channel.from_socket(host_end)
        self.held.clear()

    def cap_inodes(self) -> None:
        """Cap the files of the slot's tmpfs mounts (``sandboxes.backends.tmpfs_caps``; bwrap
        sets their size only) before it serves. A slot whose caps cannot be set is not used."""
        inner = _first_child(self.proc.pid) if self.proc is not None else None
        if inner is None:
            raise SandboxError(f"slot {self.index}: sandbox process not found for the inode caps")
        try:
            cap_files(inner, [("/tmp", self.scratch_size_mb << 20, SCRATCH_INODES),
                              ("/dev/shm", 16 << 20, SHM_INODES)])
        except TmpfsCapError as exc:
            raise SandboxError(f"slot {self.index}: {exc}") from None

    def hello(self, timeout_s: float = 20.0) -> dict:
        self.deferred_reset = self.ready_pending = False
        reply = self.request({"op": "hello", "reset_after_reply": True, "raw_output": True}, [], timeout_s)
        if not reply.get("ok"):
            raise SandboxError(f"slot {self.index}: agent did not greet: {reply}")
        self.cap_inodes()  # the agent answered: its namespaces are in place
        self.agent_pid = reply.get("pid")
        # Agents of older checkouts (benchmarks' baselines) clean up before they answer.
        self.deferred_reset = bool(reply.get("reset_after_reply"))
        return reply

    def _expect_ready(self, req: dict) -> None:
        if self.deferred_reset and req.get("op") in ("compile", "run"):
            self.ready_pending = True

    def _take_ready(self, ready: dict) -> None:
        """The agent's frame after its reset: the slot may serve again, or is replaced."""
        self.ready_pending = False
        if not ready.get("ready"):
            self.kill()
            raise ProtocolError(f"slot {self.index}: expected the reset frame, got {str(ready)[:200]}")
        if ready.get("leftover"):
            self.last_kill_reason = f"clean-up left {'; '.join(ready['leftover'])}"
            self.kill()

    async def settle(self, timeout_s: float = 30.0) -> None:
        """Read the pending reset frame (``_acquire`` does, before the slot serves again)."""
        if not self.ready_pending or not self.alive:
            self.ready_pending = False
            return
        sock = self.chan.sock
        _nonblocking(sock)
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout_s):  # no task per read, unlike wait_for
                ready = await _recv_frame(loop, self.chan, sock)
        except (OSError, ProtocolError, asyncio.TimeoutError):
            self.last_kill_reason = "no reset frame after the last run"
            self.ready_pending = False
            self.kill()
            return
        except BaseException:  # cancelled mid-frame: the stream is out of step
            self.last_kill_reason = "cancelled while reading the reset frame"
            self.kill()
            raise
        try:
            self._take_ready(ready)
        except ProtocolError:
            pass

    def request(self, req: dict, fds: list[int], timeout_s: float) -> dict:
        """One round trip. Raises ProtocolError/OSError when the slot is broken (caller kills it)."""
        with self.lock:
            if not self.alive:
                raise ProtocolError(f"slot {self.index} is not running")
            req["id"] = rid = next(self._ids)
            self.chan.sock.settimeout(timeout_s)
            try:
                if self.ready_pending:  # normally read by settle() already
                    self._take_ready(self.chan.recv()[0])
                    if not self.alive:
                        raise ProtocolError(f"slot {self.index}: {self.last_kill_reason}")
                self.chan.send(req, fds)
                reply, extra = self.chan.recv()
            except (OSError, ProtocolError):
                self.kill()
                raise
            for fd in extra:
                os.close(fd)
            self._expect_ready(req)
            if self.ready_pending and req.get("op") == "compile":
                # Compiles are rare and followed by runs on any slot: settle now.
                try:
                    self._take_ready(self.chan.recv()[0])
                except (OSError, ProtocolError):
                    self.kill()
            return self._checked(reply, rid)

    async def request_async(self, req: dict, timeout_s: float, fds: list[int] | None = None) -> dict:
        """``request`` on the event loop: no thread hop a run (about 0.1-0.2 ms, more under
        load). ``fds`` travel with the frame's header, as ``Channel.send`` sends them; the
        caller keeps (and closes) its copies. Same failures, same slot discipline."""
        if not self.lock.acquire(blocking=False):
            # The pool hands a slot to one user at a time and _acquire checks the lock is
            # free, so this is a pool bug: say so loudly; the run is an IE.
            log.error("slot %d: request while another is on it (slot handed out twice)", self.index)
            raise ProtocolError(f"slot {self.index} is busy")
        try:
            if self.ready_pending:
                await self.settle()
            if not self.alive:
                raise ProtocolError(f"slot {self.index} is not running")
            req["id"] = rid = next(self._ids)
            sock = self.chan.sock
            _nonblocking(sock)
            loop = asyncio.get_running_loop()
            try:
                async with asyncio.timeout(timeout_s):  # no task per step, unlike wait_for
                    frame = self.chan.encode(req)
                    if fds:
                        await _send_with_fds(loop, sock, frame, fds)
                    else:
                        await loop.sock_sendall(sock, frame)
                    reply = await _recv_frame(loop, self.chan, sock)
            except (OSError, ProtocolError, asyncio.TimeoutError) as exc:
                self.kill()
                if isinstance(exc, asyncio.TimeoutError):
                    raise ProtocolError(f"slot {self.index}: no reply within {timeout_s:.1f} s") from None
                raise
            except BaseException:  # cancelled mid-request: the stream is out of step
                self.kill()
                raise
            self._expect_ready(req)
            return self._checked(reply, rid)
        finally:
            self.lock.release()

    def _checked(self, reply: dict, rid: int) -> dict:
        if reply.get("id") != rid:
            self.kill()
            raise ProtocolError(f"slot {self.index}: reply id {reply.get('id')} for request {rid}")
        if reply.get("leftover"):
            # The slot check failed (processes, IPC objects or files survived the
            # clean-up): this reply is still valid, the sandbox is not. It is replaced
            # before its next use (_acquire).
            self.last_kill_reason = f"clean-up left {'; '.join(reply['leftover'])}"
            self.kill()
        return reply

    def kill(self) -> None:
        self.ready_pending = False
        if self.chan is not None:
            self.chan.close()
            self.chan = None
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        self.held.clear()

    def shutdown(self) -> None:
        if self.alive:
            try:
                self.request({"op": "shutdown"}, [], 5.0)
            except (OSError, ProtocolError):
                pass
        self.kill()
