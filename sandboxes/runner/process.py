"""Start one untrusted process under limits and watch it until it is gone (stdlib only).

Why our own fork instead of subprocess: the child must join the run's cgroup, drop to
the run uid, set rlimits, set no_new_privs and start its own session in a fixed order,
and the parent must read stdout with a cap, poll the CPU time of the whole tree and
notice the main process's exit (a pidfd) even while descendants still hold the pipes.
The caller (``core.Runner``) runs one process at a time from a single-threaded agent,
which keeps fork-then-exec safe.

Three parts: ``_spawn`` (the shim or a fork), ``_watch`` (capped pipe reader + CPU/wall
kill), ``_finish`` (reap, drain, and read the shim's report and the cgroup's counters).
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
from sandboxes.runner.cpu_meter import CgroupMeter, TreeMeter

_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_NO_NEW_PRIVS = 38
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
PR_SET_DUMPABLE = 4
F_SETPIPE_SZ = 1031
_CHUNK = 1 << 16
_CPU_POLL_MAX_S = 0.05
_NCPU = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


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
    oom_killed: bool = False  # the run's cgroup hit its memory limit and the kernel killed in it


@dataclass(frozen=True)
class Identity:
    """Who the run executes as: uid/gid (None: keep the caller's, e.g. inside Lambda)."""

    uid: int | None = None
    gid: int | None = None


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


def _shim_argv(shim: str, argv, cwd: str, rlimits, ident: Identity, use_seccomp: bool,
               cgroup_procs: list[str]) -> list[str]:
    uid = -1 if ident.uid is None else ident.uid
    gid = -1 if ident.gid is None else ident.gid
    filt = seccomp.filter_hex() if use_seccomp and seccomp.supported() else "-"
    procs = ":".join(cgroup_procs) if cgroup_procs else "-"
    out = [shim, cwd, str(uid), str(gid), filt, procs, str(len(rlimits))]
    for res, (soft, hard) in rlimits:
        out += [str(res), str(soft), str(hard)]
    return out + ["--", *argv]


@dataclass
class _Started:
    pid: int
    out_r: int
    err_r: int
    ep_r: int
    base_kb: int = 0  # fork mode: the forking process's RSS, inherited as the child's high-water mark


def _spawn(argv, env, cwd, stdin_fd, rlimits, ident, use_seccomp, shim, cgroup_procs) -> _Started | str:
    """Start the program (through the shim, or by forking here); a str is a setup error."""
    out_r, out_w = os.pipe2(os.O_CLOEXEC)
    err_r, err_w = os.pipe2(os.O_CLOEXEC)
    ep_r, ep_w = os.pipe2(os.O_CLOEXEC)
    try:
        fcntl.fcntl(out_r, F_SETPIPE_SZ, 1 << 20)
    except OSError:
        pass
    base_kb = 0
    if shim is not None:
        try:
            pid = os.posix_spawn(shim, _shim_argv(shim, argv, cwd, rlimits, ident, use_seccomp, cgroup_procs),
                                 env, file_actions=[(os.POSIX_SPAWN_DUP2, stdin_fd, 0),
                                                    (os.POSIX_SPAWN_DUP2, out_w, 1),
                                                    (os.POSIX_SPAWN_DUP2, err_w, 2),
                                                    (os.POSIX_SPAWN_DUP2, ep_w, 3)])
        except OSError as exc:
            for fd in (out_r, out_w, err_r, err_w, ep_r, ep_w):
                os.close(fd)
            return f"posix_spawn of the shim failed: {exc}"
    else:
        # A forked child's peak RSS starts at ours (exec keeps the old image's high-water
        # mark), so remember what we hold now and report the program's own share.
        base_kb = _self_rss_kb()
        pid = os.fork()
        if pid == 0:
            _child(argv, env, cwd, stdin_fd, out_w, err_w, ep_w, rlimits, ident, use_seccomp, cgroup_procs)
    for fd in (out_w, err_w, ep_w):
        os.close(fd)
    for fd in (out_r, err_r, ep_r):
        os.set_blocking(fd, False)
    return _Started(pid, out_r, err_r, ep_r, base_kb)


class _Capture:
    """stdout up to ``output_cap`` (beyond it: the run is over, OLE) and stderr up to its cap."""

    def __init__(self, output_cap: int, stderr_cap: int):
        self.output_cap, self.stderr_cap = output_cap, stderr_cap
        self.out: list[bytes] = []
        self.err: list[bytes] = []
        self.out_len = self.err_len = 0
        self.over = False

    def add(self, is_stdout: bool, chunk: bytes) -> None:
        if is_stdout:
            room = self.output_cap - self.out_len
            if len(chunk) > room:
                chunk, self.over = chunk[:room], True
            self.out.append(chunk)
            self.out_len += len(chunk)
        elif self.err_len < self.stderr_cap:
            self.err.append(chunk[: self.stderr_cap - self.err_len])
            self.err_len += len(self.err[-1])

    def drain(self, fd: int, is_stdout: bool) -> None:
        """Read what is already buffered (descendants outside the run may hold the pipe open)."""
        while not self.over:
            try:
                chunk = os.read(fd, _CHUNK)
            except BlockingIOError:
                return
            if not chunk:
                return
            self.add(is_stdout, chunk)


def _kill_run(pid: int, cgroup) -> None:
    """The cgroup (everything the run started, setsid or not), then the shim's session group."""
    if cgroup is not None:
        cgroup.kill()
    for fn in (os.killpg, os.kill):  # the group, and the process itself if setsid() not reached
        try:
            fn(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _watch(st: _Started, cap: _Capture, meter, cgroup, cpu_limit_s: float, wall_limit_s: float,
           start: float) -> tuple[str | None, bytearray]:
    """Read the pipes until the main process exits or a limit is hit; returns (killed_for, report)."""
    report = bytearray()
    try:
        pidfd = os.pidfd_open(st.pid)
    except OSError:
        pidfd = -1
    poller = select.poll()
    for fd in (st.out_r, st.err_r, st.ep_r):
        poller.register(fd, select.POLLIN)
    if pidfd >= 0:
        poller.register(pidfd, select.POLLIN)
    deadline = start + wall_limit_s
    # No CPU check before the whole budget could have been spent: short runs never poll.
    next_cpu_check = start + max(meter.min_poll_s, min(_CPU_POLL_MAX_S, cpu_limit_s / _NCPU))
    killed_for = None
    try:
        while killed_for is None:
            now = time.monotonic()
            if now >= deadline:
                killed_for = "wall"
                break
            if now >= next_cpu_check:
                used = meter.cpu_s()
                if used >= cpu_limit_s:
                    killed_for = "cpu"
                    break
                # CPU time grows at most _NCPU times as fast as the clock: sleeping for the
                # budget left / _NCPU cannot overshoot by more than one minimum poll.
                left = (cpu_limit_s - used) / _NCPU
                next_cpu_check = now + max(meter.min_poll_s, min(_CPU_POLL_MAX_S, left))
                if pidfd < 0 and _has_exited(st.pid):
                    break
            timeout = max(0.0, min(deadline, next_cpu_check) - now)
            exited = False
            for fd, _ev in poller.poll(timeout * 1000 + 1):
                if fd == pidfd:
                    exited = True
                    continue
                try:
                    chunk = os.read(fd, _CHUNK if fd != st.ep_r else 4096)
                except BlockingIOError:
                    continue
                if not chunk:
                    poller.unregister(fd)
                    continue
                if fd == st.ep_r:
                    report += chunk
                    continue
                cap.add(fd == st.out_r, chunk)
                if cap.over:
                    killed_for = "output"
                    break
            if exited:
                break
    finally:
        if pidfd >= 0:
            os.close(pidfd)
    if killed_for is not None:
        _kill_run(st.pid, cgroup)
    return killed_for, report


def run_process(argv: list[str], *, env: dict[str, str], cwd: str, stdin_fd: int,
                rlimits, ident: Identity, cpu_limit_s: float, wall_limit_s: float,
                output_cap: int, stderr_cap: int, use_seccomp: bool = True,
                shim: str | None = None, cgroup=None) -> Outcome:
    """Run argv to completion under the limits; kill everything it started at the end.

    ``shim``: path of the built spawn_shim (posix_spawn, fast); None: os.fork() here.
    ``cgroup``: the run's ``cgroup.RunCgroup`` (CPU time, memory and pids of the whole
    tree, killed as one); None: a /proc scan of the run's processes measures CPU time.
    """
    res = Outcome()
    start = time.monotonic()
    procs = cgroup.procs_files if cgroup is not None else []
    st = _spawn(argv, env, cwd, stdin_fd, rlimits, ident, use_seccomp, shim, procs)
    if isinstance(st, str):
        res.setup_error = st
        return res
    meter = CgroupMeter(cgroup) if cgroup is not None else TreeMeter(st.pid, ident.uid)
    cap = _Capture(output_cap, stderr_cap)
    res.killed_for, report = _watch(st, cap, meter, cgroup, cpu_limit_s, wall_limit_s, start)
    _, status, ru = os.wait4(st.pid, 0)
    res.wall_time_s = time.monotonic() - start
    tree_cpu = meter.cpu_s() if cgroup is None else 0.0  # before the leftovers are killed
    _kill_run(st.pid, cgroup)  # whatever it left behind
    if res.killed_for != "output":
        cap.drain(st.out_r, True)
        cap.drain(st.err_r, False)
        if cap.over:
            res.killed_for = "output"
    while True:
        try:
            chunk = os.read(st.ep_r, 4096)
        except BlockingIOError:
            break
        if not chunk:
            break
        report += chunk
    for fd in (st.out_r, st.err_r, st.ep_r):
        os.close(fd)
    res.stdout, res.stderr = b"".join(cap.out), b"".join(cap.err)
    res.output_bytes = cap.out_len
    _finish(res, report, status, ru, shim is not None, st.base_kb, tree_cpu, cgroup)
    return res


def _finish(res: Outcome, report: bytearray, status: int, ru, via_shim: bool, base_kb: int,
            tree_cpu: float, cgroup) -> None:
    """Exit status, CPU time and peak memory: the cgroup's counters where there is one."""
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
    else:
        res.cpu_time_s = ru.ru_utime + ru.ru_stime
        res.memory_kb = ru.ru_maxrss if via_shim else max(ru.ru_maxrss - base_kb, 0)
    if cgroup is not None:
        res.cpu_time_s = cgroup.cpu_s()  # every process of the run, waited for or not
        res.memory_kb = max(cgroup.memory_peak_kb(), 0)
        res.oom_killed = cgroup.oom_killed()
    else:
        res.cpu_time_s = max(res.cpu_time_s, tree_cpu)
    if os.WIFSIGNALED(status):
        res.signal = os.WTERMSIG(status)
    else:
        res.exit_code = os.WEXITSTATUS(status)
