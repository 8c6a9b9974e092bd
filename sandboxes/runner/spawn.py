"""Start one untrusted program under its limits (stdlib only): the first part of a run.

Three ways, the same steps in the same order (new session, fds, cwd, join the run's
cgroup, clear inheritable caps, drop groups/gid/uid, no_new_privs, parent-death signal,
default signals, seccomp, rlimits, exec):

- ``SpawnServer`` (fastest): a long-lived ``spawn_shim --serve`` per runner forks each
  program from a small static process, so a run pays one fork of a tiny process and one
  exec (the program's). The program is the server's child; its end arrives as the ``R``
  line on the run's report pipe, followed by EOF.
- the one-shot shim: ``posix_spawn`` of ``spawn_shim`` (vfork-based), which forks the
  program and reports on the same pipe; two execs a run (shim, program).
- ``os.fork()`` of the agent (no C compiler): slow on these VMs (page-table copy), and the
  child's peak RSS starts at the agent's, so ``base_kb`` is subtracted later.

Why our own spawn instead of subprocess: the child must join the run's cgroup before it
drops privileges, and the parent must see the main process end (report pipe or pidfd)
even while descendants still hold the output pipes.
"""

from __future__ import annotations

import array
import ctypes
import fcntl
import os
import resource
import select
import signal
import socket
from dataclasses import dataclass

from sandboxes.runner import seccomp

_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_NO_NEW_PRIVS = 38
PR_SET_PDEATHSIG = 1
F_SETPIPE_SZ = 1031
# Below the server's receive buffer (spawn_shim.c MAX_REQUEST) and a unix datagram's limit.
_MAX_REQUEST = 200_000


@dataclass
class Started:
    """A program that is running: its pid (session leader) and our ends of its pipes."""

    pid: int
    out_r: int
    err_r: int
    ep_r: int  # the report pipe: P/E/R lines (spawn_shim.c)
    via: str  # "server" | "shim" | "fork"
    base_kb: int = 0  # fork mode: the forking process's RSS, inherited as the child's high-water mark
    report: bytes = b""  # what was read from ep_r while starting (the server's P line)

    @property
    def child_of_ours(self) -> bool:
        """shim/fork: we wait for pid ourselves; server: the server does and reports R."""
        return self.via != "server"


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def _clear_inheritable_caps() -> None:
    """Empty the inheritable capability set (bwrap fills it with the agent's kept caps).

    Harmless under no_new_privs anyway; cleared so a run holds no capability in any set.
    """
    hdr = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3: two 32-bit words
    data = (_CapData * 2)()
    if _libc.capget(ctypes.byref(hdr), data) != 0:
        return
    if data[0].inheritable or data[1].inheritable:
        for d in data:
            d.inheritable = 0
        _libc.capset(ctypes.byref(hdr), data)


def _self_rss_kb() -> int:
    """This process's resident size now, in KiB (0 if /proc cannot tell)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
    except (OSError, ValueError, IndexError):
        return 0


def shim_fields(argv, cwd: str, rlimits, uid: int | None, gid: int | None, filt: str,
                cgroup_procs: list[str]) -> list[str]:
    """The shim's arguments from CWD on (spawn_shim.c: one-shot argv and server request)."""
    procs = ":".join(cgroup_procs) if cgroup_procs else "-"
    out = [cwd, str(-1 if uid is None else uid), str(-1 if gid is None else gid), filt, procs,
           str(len(rlimits))]
    for res, (soft, hard) in rlimits:
        out += [str(res), str(soft), str(hard)]
    return out + ["--", *argv]


def _child(argv, env, cwd, stdin_fd, out_w, err_w, err_pipe_w, rlimits, uid, gid,
           use_seccomp: bool, cgroup_procs: list[str]) -> None:
    """Runs in the forked child; never returns (exec or _exit)."""
    try:
        os.setsid()  # own session and process group: killpg reaches everything it forks
        os.dup2(stdin_fd, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        # Close every other fd (agent sockets, store fds) except the exec-error pipe (CLOEXEC).
        os.closerange(3, err_pipe_w)
        os.closerange(err_pipe_w + 1, 1 << 16)
        os.chdir(cwd)
        for path in cgroup_procs:  # before setuid: the run uid may not write these files
            fd = os.open(path, os.O_WRONLY)
            os.write(fd, b"0")
            os.close(fd)
        _clear_inheritable_caps()
        if uid is not None:
            os.setgroups([])
            os.setgid(gid if gid is not None else uid)
            os.setuid(uid)  # from root: drops every capability too
        if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(NO_NEW_PRIVS)")
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if use_seccomp:
            seccomp.install()
        for res, pair in rlimits:
            resource.setrlimit(res, pair)
        for sig in (signal.SIGPIPE, signal.SIGINT, signal.SIGTERM, signal.SIGCHLD, signal.SIGXFSZ):
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        os.execve(argv[0], argv, env)
    except BaseException as exc:  # noqa: BLE001 - report anything to the parent
        try:
            os.write(err_pipe_w, f"E {type(exc).__name__}: {exc}\n".encode()[:1000])
        finally:
            os._exit(127)


class SpawnServer:
    """A ``spawn_shim --serve`` process and our end of its control socket.

    Started lazily and again after it died (the next run gets a fresh one). Requests are
    one datagram each, with stdin/stdout/stderr/report fds attached (spawn_shim.c).
    """

    def __init__(self, shim: str, use_seccomp: bool = True):
        self.shim = shim
        self.filter = seccomp.filter_hex() if use_seccomp and seccomp.supported() else "-"
        self.sock: socket.socket | None = None
        self.pid: int | None = None

    def _start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.pid = os.posix_spawn(self.shim, [self.shim, "--serve", self.filter], {},
                                      file_actions=[(os.POSIX_SPAWN_DUP2, theirs.fileno(), 3)])
        finally:
            theirs.close()
        self.sock = ours

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()  # EOF: the server exits
            self.sock = None
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            self.pid = None

    def request(self, fields: list[str], env: dict[str, str], fds: list[int]) -> str | None:
        """Send one spawn request; a str says why it could not be sent."""
        strings = [str(len(fields) + 1), *fields, *(f"{k}={v}" for k, v in env.items())]
        if any("\0" in s for s in strings):
            return "a program argument or environment entry holds a NUL byte"
        payload = "\0".join(strings).encode()
        if len(payload) > _MAX_REQUEST:
            return f"spawn request of {len(payload)} bytes is too large for the spawn server"
        for attempt in range(2):
            if self.sock is None:
                self._start()
            try:
                self.sock.sendmsg([payload], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
                return None
            except OSError as exc:  # the server died (e.g. killed): start another once
                self.close()
                if attempt:
                    return f"spawn server unavailable: {exc}"
        return "spawn server unavailable"


def _pipes(uid: int | None = None, gid: int | None = None) -> tuple[int, int, int, int, int, int]:
    """The run's stdout, stderr and report pipes. The output pipes belong to the run's uid, as
    a shell's pipes belong to the user running the program: ``open('/dev/stdout', 'w')`` (a
    re-open through /proc/self/fd, checked against the pipe's owner and mode 0600) then works
    as it does bare. An OSError leaves nothing open."""
    fds: list[int] = []
    try:
        for _ in range(3):
            fds.extend(os.pipe2(os.O_CLOEXEC))
        out_r, out_w, err_r, err_w, ep_r, ep_w = fds
        if uid is not None and uid != os.geteuid():
            for fd in (out_w, err_w):
                os.fchown(fd, uid, uid if gid is None else gid)
    except OSError:
        for fd in fds:
            os.close(fd)
        raise
    try:
        fcntl.fcntl(out_r, F_SETPIPE_SZ, 1 << 20)
    except OSError:
        pass
    return out_r, out_w, err_r, err_w, ep_r, ep_w


def _read_pid_line(ep_r: int, timeout_s: float = 10.0) -> tuple[int | None, bytes]:
    """The server's first line on the report pipe: ``P <pid>`` (or ``E``, or EOF)."""
    buf = b""
    poller = select.poll()
    poller.register(ep_r, select.POLLIN)
    while b"\n" not in buf:
        if not poller.poll(timeout_s * 1000):
            return None, buf + b"E spawn server did not start the program in time\n"
        chunk = os.read(ep_r, 4096)
        if not chunk:
            return None, buf
        buf += chunk
    first, _, rest = buf.partition(b"\n")
    if first.startswith(b"P "):
        return int(first[2:]), rest
    return None, buf


def spawn(argv, *, env, cwd, stdin_fd, rlimits, uid, gid, use_seccomp, cgroup_procs,
          shim: str | None = None, server: SpawnServer | None = None) -> Started | str:
    """Start the program; a str is a setup error (an IE: the program never ran)."""
    try:
        out_r, out_w, err_r, err_w, ep_r, ep_w = _pipes(uid, gid)
    except OSError as exc:
        return f"output pipes: {exc}"
    ours, theirs = (out_r, err_r, ep_r), (out_w, err_w, ep_w)
    base_kb, via, pid, early = 0, "fork", None, b""
    try:
        if server is not None:
            via = "server"
            why = server.request(shim_fields(argv, cwd, rlimits, uid, gid, "-", cgroup_procs), env,
                                 [stdin_fd, out_w, err_w, ep_w])
            if why is not None:
                raise OSError(why)
        elif shim is not None:
            via = "shim"
            filt = seccomp.filter_hex() if use_seccomp and seccomp.supported() else "-"
            pid = os.posix_spawn(shim, [shim, *shim_fields(argv, cwd, rlimits, uid, gid, filt, cgroup_procs)],
                                 env, file_actions=[(os.POSIX_SPAWN_DUP2, stdin_fd, 0),
                                                    (os.POSIX_SPAWN_DUP2, out_w, 1),
                                                    (os.POSIX_SPAWN_DUP2, err_w, 2),
                                                    (os.POSIX_SPAWN_DUP2, ep_w, 3)])
        else:
            # A forked child's peak RSS starts at ours (exec keeps the old image's high-water
            # mark), so remember what we hold now and report the program's own share.
            base_kb = _self_rss_kb()
            pid = os.fork()
            if pid == 0:
                _child(argv, env, cwd, stdin_fd, out_w, err_w, ep_w, rlimits, uid, gid, use_seccomp, cgroup_procs)
    except OSError as exc:
        for fd in ours + theirs:
            os.close(fd)
        return f"{via} spawn failed: {exc}"
    for fd in theirs:
        os.close(fd)
    if via == "server":
        pid, early = _read_pid_line(ep_r)
        if pid is None:
            for fd in ours:
                os.close(fd)
            text = early.decode(errors="replace").strip()
            return text[2:] if text.startswith("E ") else (text or "spawn server ended without starting the program")
    for fd in ours:
        os.set_blocking(fd, False)
    return Started(pid, out_r, err_r, ep_r, via, base_kb, early)
