"""Start one untrusted process under limits and watch it until it is gone (stdlib only).

Why our own fork instead of subprocess: the child must drop to the run uid, set rlimits,
set no_new_privs and start its own session in a fixed order, and the parent must read
stdout with a cap, poll CPU time and notice the main process's exit (a pidfd) even while
descendants still hold the pipes. The caller (``core.Runner``) runs one process at a time
from a single-threaded agent, which keeps fork-then-exec safe.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import resource
import select
import signal
import time
from dataclasses import dataclass

from sandboxes.runner import seccomp

_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_NO_NEW_PRIVS = 38
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
PR_SET_DUMPABLE = 4
F_SETPIPE_SZ = 1031
_CLK_TCK = os.sysconf("SC_CLK_TCK")
_CHUNK = 1 << 16
_CPU_POLL_S = 0.05


def set_child_subreaper() -> None:
    """Orphaned grandchildren (double-forked daemons) get re-parented to us, not to init."""
    _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def set_not_dumpable() -> None:
    """Make this process's /proc files (environ, mem, fd) root-only, even for our own uid."""
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


@dataclass
class Outcome:
    """What happened, before classification."""

    exit_code: int | None = None
    signal: int | None = None
    cpu_time_s: float = 0.0
    wall_time_s: float = 0.0
    memory_kb: int = 0
    stdout: bytes = b""
    output_bytes: int = 0
    stderr: bytes = b""
    killed_for: str | None = None  # 'output' | 'wall' | 'cpu' when the agent killed it
    setup_error: str | None = None  # the child never reached exec (an internal error)


@dataclass(frozen=True)
class Identity:
    """Who the run executes as: uid/gid (None: keep the caller's, e.g. inside Lambda)."""

    uid: int | None = None
    gid: int | None = None


def _proc_cpu_s(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return 0.0
    rest = data[data.rfind(b")") + 2:].split()
    # fields after the comm: state is rest[0]; utime/stime are fields 14/15 -> rest[11], rest[12]
    return (int(rest[11]) + int(rest[12])) / _CLK_TCK


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


def _has_exited(pid: int) -> bool:
    """Without a pidfd (old kernels): has pid exited? Leaves it unreaped (WNOWAIT)."""
    info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    return info is not None


def _child(argv, env, cwd, stdin_fd, out_w, err_w, err_pipe_w, rlimits, ident: Identity,
           use_seccomp: bool) -> None:
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
        _clear_inheritable_caps()
        if ident.uid is not None:
            os.setgroups([])
            os.setgid(ident.gid if ident.gid is not None else ident.uid)
            os.setuid(ident.uid)  # from root: drops every capability too
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


def _shim_argv(shim: str, argv, cwd: str, rlimits, ident: Identity, use_seccomp: bool) -> list[str]:
    uid = -1 if ident.uid is None else ident.uid
    gid = -1 if ident.gid is None else ident.gid
    filt = seccomp.filter_hex() if use_seccomp and seccomp.supported() else "-"
    out = [shim, cwd, str(uid), str(gid), filt, str(len(rlimits))]
    for res, (soft, hard) in rlimits:
        out += [str(res), str(soft), str(hard)]
    return out + ["--", *argv]


def run_process(argv: list[str], *, env: dict[str, str], cwd: str, stdin_fd: int,
                rlimits, ident: Identity, cpu_limit_s: float, wall_limit_s: float,
                output_cap: int, stderr_cap: int, use_seccomp: bool = True,
                shim: str | None = None) -> Outcome:
    """Run argv to completion under the limits; kill its whole process group at the end.

    ``shim``: path of the built spawn_shim (posix_spawn, fast); None: os.fork() here.
    """
    out_r, out_w = os.pipe2(os.O_CLOEXEC)
    err_r, err_w = os.pipe2(os.O_CLOEXEC)
    ep_r, ep_w = os.pipe2(os.O_CLOEXEC)
    try:
        fcntl.fcntl(out_r, F_SETPIPE_SZ, 1 << 20)
    except OSError:
        pass
    res = Outcome()
    start = time.monotonic()
    if shim is not None:
        try:
            pid = os.posix_spawn(shim, _shim_argv(shim, argv, cwd, rlimits, ident, use_seccomp), env,
                                 file_actions=[(os.POSIX_SPAWN_DUP2, stdin_fd, 0),
                                               (os.POSIX_SPAWN_DUP2, out_w, 1),
                                               (os.POSIX_SPAWN_DUP2, err_w, 2),
                                               (os.POSIX_SPAWN_DUP2, ep_w, 3)])
        except OSError as exc:
            for fd in (out_r, out_w, err_r, err_w, ep_r, ep_w):
                os.close(fd)
            res.setup_error = f"posix_spawn of the shim failed: {exc}"
            return res
    else:
        # A forked child's peak RSS starts at ours (exec keeps the old image's high-water
        # mark), so remember what we hold now and report the program's own share.
        base_kb = _self_rss_kb()
        pid = os.fork()
        if pid == 0:
            _child(argv, env, cwd, stdin_fd, out_w, err_w, ep_w, rlimits, ident, use_seccomp)
    os.close(out_w)
    os.close(err_w)
    os.close(ep_w)
    # The report pipe (fd 3 of the shim): "P pid", "E message", "R status utime stime maxrss".
    # In fork mode only "E" can come, and it is read after the process is gone.
    report = bytearray()
    cpu_pid = pid
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        pidfd = -1
    out_chunks: list[bytes] = []
    err_chunks: list[bytes] = []
    err_len = 0
    poller = select.poll()
    open_fds = {out_r, err_r}
    for fd in open_fds:
        os.set_blocking(fd, False)
        poller.register(fd, select.POLLIN)
    if pidfd >= 0:
        poller.register(pidfd, select.POLLIN)
    if shim is not None:
        os.set_blocking(ep_r, False)
        poller.register(ep_r, select.POLLIN)
    deadline = start + wall_limit_s
    next_cpu_check = start + min(_CPU_POLL_S, cpu_limit_s)
    exited = False

    def kill(reason: str | None) -> None:
        if reason and res.killed_for is None:
            res.killed_for = reason
            res.cpu_time_s = _proc_cpu_s(cpu_pid)  # the report line dies with the shim
        for fn in (os.killpg, os.kill):  # the group, and the process itself if setsid() not reached
            try:
                fn(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    while not exited and res.killed_for is None:
        now = time.monotonic()
        if now >= deadline:
            kill("wall")
            break
        if now >= next_cpu_check:
            if _proc_cpu_s(cpu_pid) >= cpu_limit_s:
                kill("cpu")
                break
            next_cpu_check = now + _CPU_POLL_S
            if pidfd < 0 and _has_exited(pid):
                break
        timeout = max(0.0, min(deadline, next_cpu_check) - now)
        for fd, _ev in poller.poll(timeout * 1000 + 1):
            if fd == pidfd:
                exited = True
                continue
            if fd == ep_r:
                try:
                    chunk = os.read(ep_r, 4096)
                except BlockingIOError:
                    continue
                if not chunk:
                    poller.unregister(ep_r)
                report += chunk
                if cpu_pid == pid and report.startswith(b"P "):
                    cpu_pid = int(report[2:report.index(b"\n")]) if b"\n" in report else pid
                continue
            try:
                chunk = os.read(fd, _CHUNK)
            except BlockingIOError:
                continue
            if not chunk:
                poller.unregister(fd)
                open_fds.discard(fd)
                continue
            if fd == out_r:
                room = output_cap - res.output_bytes
                if len(chunk) > room:
                    out_chunks.append(chunk[:room])
                    res.output_bytes = output_cap
                    kill("output")
                    break
                out_chunks.append(chunk)
                res.output_bytes += len(chunk)
            elif err_len < stderr_cap:
                err_chunks.append(chunk[: stderr_cap - err_len])
                err_len += len(err_chunks[-1])
    _, status, ru = os.wait4(pid, 0)
    res.wall_time_s = time.monotonic() - start
    kill(None)  # whatever it left behind in its group
    # Drain what is already buffered (descendants outside the group may keep the pipe open).
    if res.killed_for != "output":
        for fd in (out_r, err_r):
            while True:
                try:
                    chunk = os.read(fd, _CHUNK)
                except BlockingIOError:
                    break
                if not chunk:
                    break
                if fd == out_r:
                    room = output_cap - res.output_bytes
                    if len(chunk) > room:
                        out_chunks.append(chunk[:room])
                        res.output_bytes = output_cap
                        res.killed_for = "output"
                        break
                    out_chunks.append(chunk)
                    res.output_bytes += len(chunk)
                elif err_len < stderr_cap:
                    err_chunks.append(chunk[: stderr_cap - err_len])
                    err_len += len(err_chunks[-1])
    os.set_blocking(ep_r, False)
    while True:
        try:
            chunk = os.read(ep_r, 4096)
        except BlockingIOError:
            break
        if not chunk:
            break
        report += chunk
    for fd in (out_r, err_r, ep_r):
        os.close(fd)
    if pidfd >= 0:
        os.close(pidfd)
    res.stdout = b"".join(out_chunks)
    res.stderr = b"".join(err_chunks)
    final = None
    for line in bytes(report).decode(errors="replace").splitlines():
        if line.startswith("E "):
            res.setup_error = line[2:]
        elif line.startswith("R "):
            final = line.split()
    if final is not None:  # the shim saw the program end: its own status and rusage
        status = int(final[1])
        res.cpu_time_s = (int(final[2]) + int(final[3])) / 1e6
        res.memory_kb = int(final[4])
    elif shim is None or res.killed_for is None:
        res.cpu_time_s = max(res.cpu_time_s, ru.ru_utime + ru.ru_stime)
        res.memory_kb = ru.ru_maxrss if shim is not None else max(ru.ru_maxrss - base_kb, 0)
    if os.WIFSIGNALED(status):
        res.signal = os.WTERMSIG(status)
    else:
        res.exit_code = os.WEXITSTATUS(status)
    return res
