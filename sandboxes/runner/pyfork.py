"""Runner side of the Python fork server (zygote.py): start it, run one test through it.

Why: a Python test exec'd through the spawn shim spends ~5 ms of a ~5.6 ms A+B run
starting the interpreter. The zygote holds one started interpreter per slot; each test is
a fork of it that takes on the run's isolation before any submission byte is read (see
zygote.py and PROTOCOL.md "Python fork server").

The zygote is the test process's parent, so the runner cannot wait4() it: the zygote
reports ``S <status> <utime> <stime> <maxrss> <pid>`` once it reaped the child (and, for
runs without a cgroup, ``P <pid>`` right after the fork: only then does the runner need
the pid while the run is alive, for its /proc CPU scan and process-group kill). The runner keeps everything else a run has on the exec path: the
cgroup (CPU/memory/pids, kill as one), the capped stdout/stderr reader, the CPU/wall
watch and the clean-up. A zygote that dies, hangs or says something unexpected makes
the run an IE (``Outcome.setup_error``) and is restarted for the next one.
"""

from __future__ import annotations

import array
import fcntl
import marshal
import os
import select
import signal
import socket
import time
from pathlib import Path

from sandboxes.runner import seccomp
from sandboxes.runner.cpu_meter import CgroupMeter, TreeMeter
from sandboxes.runner.capture import Capture as _Capture
from sandboxes.runner.process import Identity, Outcome
from sandboxes.runner.spawn import _pipes
from sandboxes.runner.stopped import StopWatch
from sandboxes.runner.watch import watch_idle

ZYGOTE = Path(__file__).with_name("zygote.py")
_START_TIMEOUT_S = 10.0
_REPLY_TIMEOUT_S = 10.0  # a fork, or the zygote's reap after the runner killed the run
_CPU_POLL_MAX_S = 0.05
_NCPU = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
# A zygote is replaced after this many forks: whatever a run leaves in it (allocator state,
# a run's freed memory) stays bounded, and each generation draws a new str hash seed.
MAX_RUNS_PER_ZYGOTE = 1000
# zygote.py's exit status (and stderr prefix) for a compile whose code object cannot travel
# to a run fork: the exec path takes that source (test_pyfork_quiet_end checks they agree).
NOT_FORKABLE, NOT_FORKABLE_MESSAGE = 125, "fork server: not forkable:"


class ForkServerError(RuntimeError):
    """The zygote could not be started or stopped answering (the run is an IE)."""


def _sealed_memfd(name: str, data: bytes) -> int:
    fd = os.memfd_create(name, os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS,
                fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


class ForkServer:
    """One zygote process (started lazily, restarted after a failure)."""

    def __init__(self, python: str, env: dict[str, str], stack_bytes: int):
        self.python, self.env, self.stack_bytes = python, dict(env), stack_bytes
        self.pid: int | None = None
        self.sock: socket.socket | None = None
        self.starts = 0  # how many zygotes this runner started (tests: restart after a kill)
        self.runs = 0  # forks asked of the current zygote
        self.max_runs = MAX_RUNS_PER_ZYGOTE

    # -- life cycle -------------------------------------------------------------------
    def start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            devnull = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
            try:
                # Every signal at its default and none blocked, like an exec'd run (the
                # interpreter then sets its own SIGPIPE/SIGXFSZ/SIGINT handling); its own
                # process group, so a run's killpg never reaches it.
                pid = os.posix_spawn(
                    self.python, [self.python, "-S", "-B", str(ZYGOTE), "3", str(self.stack_bytes),
                                  seccomp.filter_hex() if seccomp.supported() else "-"],
                    self.env,
                    file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, theirs.fileno(), 3)],
                    setpgroup=0, setsigmask=(),
                    setsigdef=[s for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP)])
            finally:
                os.close(devnull)
        except OSError as exc:
            ours.close()
            raise ForkServerError(f"cannot start the Python fork server: {exc}") from exc
        finally:
            theirs.close()
        self.pid, self.sock = pid, ours
        self.starts += 1
        self.runs = 0
        hello = self._recv(_START_TIMEOUT_S)
        if not hello.startswith(b"READY "):
            self.stop()
            raise ForkServerError(f"Python fork server did not start: {hello[:200]!r}")
        self.pid = int(hello.split()[1])  # after its re-exec: the same pid

    def stop(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass
            self.pid = None

    def alive(self) -> bool:
        return self.sock is not None

    def _recv(self, timeout_s: float) -> bytes:
        assert self.sock is not None
        ready, _, _ = select.select([self.sock], [], [], timeout_s)
        if not ready:
            raise ForkServerError(f"Python fork server silent for {timeout_s:.0f} s")
        msg = self.sock.recv(4096)
        if not msg:
            raise ForkServerError("Python fork server exited")
        return msg

    # -- one run -----------------------------------------------------------------------
    def run(self, *, op: str, box: str, path: str, args: list[str], code: bytes, env: dict[str, str], stdin_fd: int,
            rlimits, ident: Identity, cpu_limit_s: float, wall_limit_s: float, output_cap: int,
            stderr_cap: int, cgroup=None, use_seccomp: bool = True, idle_limit_s: float | None = None) -> Outcome:
        """``op``: "run" (execute ``code``, a marshalled code object, as ``path``) or
        "compile" (compile ``box``/main.py; the marshalled code object comes back on stdout)."""
        res = Outcome()
        try:
            if self.alive() and self.runs >= self.max_runs:
                self.stop()  # a new generation: see MAX_RUNS_PER_ZYGOTE
            if not self.alive():
                self.start()
        except ForkServerError as exc:
            res.setup_error = str(exc)
            return res
        # The run's clocks (wall limit, idleness window) start once the zygote is up: its
        # start-up is the sandbox's, not the program's (one slower than the idleness limit
        # made the run look idle, no CPU in its cgroup: TLE).
        start = time.monotonic()
        req = {"op": op, "cwd": box, "path": path, "args": list(args), "env": env,
               "uid": ident.uid, "gid": ident.gid if ident.gid is not None else ident.uid,
               "procs": list(cgroup.procs_files) if cgroup is not None else [],
               "rlimits": [(r, s, h) for r, (s, h) in rlimits],
               "seccomp": bytes.fromhex(seccomp.filter_hex()) if use_seccomp and seccomp.supported() else b""}
        try:
            out_r, out_w, err_r, err_w, ep_r, ep_w = _pipes(req["uid"], req["gid"])
        except OSError as exc:
            res.setup_error = f"output pipes: {exc}"
            return res
        code_fd = _sealed_memfd("code", code)
        try:
            sent = [stdin_fd, out_w, err_w, ep_w, code_fd]
            self.runs += 1
            self.sock.sendmsg([(b"-" if req["procs"] else b"P") + marshal.dumps(req)],
                              [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", sent))])
        except OSError as exc:
            self._broken()
            for fd in (out_r, err_r, ep_r):
                os.close(fd)
            res.setup_error = f"Python fork server unreachable: {exc}"
            return res
        finally:
            for fd in (out_w, err_w, ep_w, code_fd):
                os.close(fd)
        for fd in (out_r, err_r, ep_r):
            os.set_blocking(fd, False)
        try:
            pid = None
            if cgroup is None:
                try:
                    msg = self._recv(_REPLY_TIMEOUT_S)
                    if not msg.startswith(b"P "):
                        raise ForkServerError(f"Python fork server: unexpected {msg[:100]!r}")
                    pid = int(msg.split()[1])
                except (ForkServerError, ValueError, OSError) as exc:
                    self._broken()
                    res.setup_error = str(exc)
                    return res
            self._watch_and_finish(res, pid, out_r, err_r, ep_r, ident, cgroup, cpu_limit_s,
                                   wall_limit_s, output_cap, stderr_cap, start, idle_limit_s)
            return res
        finally:
            for fd in (out_r, err_r, ep_r):
                os.close(fd)

    def _broken(self) -> None:
        """Whatever went wrong, the next run gets a fresh zygote."""
        self.stop()

    def _watch_and_finish(self, res: Outcome, pid: int | None, out_r: int, err_r: int, ep_r: int,
                          ident: Identity, cgroup, cpu_limit_s: float, wall_limit_s: float,
                          output_cap: int, stderr_cap: int, start: float,
                          idle_limit_s: float | None = None) -> None:
        meter = CgroupMeter(cgroup) if cgroup is not None else TreeMeter(pid, ident.uid)
        cap = _Capture(output_cap, stderr_cap)
        report = bytearray()
        poller = select.poll()
        for fd in (out_r, err_r, ep_r, self.sock.fileno()):
            poller.register(fd, select.POLLIN)
        deadline = start + wall_limit_s
        next_cpu = start + max(meter.min_poll_s, min(_CPU_POLL_MAX_S, cpu_limit_s / _NCPU))
        status_msg = None
        broken = None
        stops = StopWatch(start, pid, cgroup, parent=self.pid)
        idle = watch_idle(idle_limit_s, start, meter)
        while res.killed_for is None and status_msg is None and broken is None:
            now = time.monotonic()
            if now >= deadline:
                res.killed_for = "wall"
                break
            if now >= next_cpu:
                used = meter.cpu_s()
                if used >= cpu_limit_s:
                    res.killed_for = "cpu"
                    break
                if stops.stopped(now):
                    res.killed_for = "stopped"
                    break
                if idle.idle(used, now):
                    res.killed_for = "idle"
                    break
                next_cpu = now + max(meter.min_poll_s, min(_CPU_POLL_MAX_S, (cpu_limit_s - used) / _NCPU))
            timeout = max(0.0, min(deadline, next_cpu) - now)
            for fd, _ev in poller.poll(timeout * 1000 + 1):
                if fd == self.sock.fileno():
                    msg = self.sock.recv(4096)
                    if msg.startswith(b"S "):
                        status_msg = msg
                    else:
                        broken = f"Python fork server: {'exited' if not msg else repr(msg[:100])}"
                    break
                try:
                    chunk = os.read(fd, 4096 if fd == ep_r else 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    poller.unregister(fd)
                    continue
                if fd == ep_r:
                    report += chunk
                    continue
                cap.add(fd == out_r, chunk)
                if cap.over:
                    res.killed_for = "output"
                    break
        if status_msg is None and broken is None:  # we killed it: the zygote reaps and reports
            _kill(pid, cgroup)
            try:
                status_msg = self._recv(_REPLY_TIMEOUT_S)
                if not status_msg.startswith(b"S "):
                    broken = f"Python fork server: unexpected {status_msg[:100]!r}"
            except (ForkServerError, OSError) as exc:
                broken = str(exc)
        res.wall_time_s = time.monotonic() - start
        tree_cpu = meter.cpu_s() if cgroup is None else 0.0
        if broken is None:
            pid = int(status_msg.split()[5])
        if cgroup is not None and broken is None:
            # Reaped, and it joined its group before anything of the run could fork: the
            # group holds whatever it left behind (its kill proves the group empty).
            cgroup.kill()
        else:
            _kill(pid, cgroup)  # whatever it left behind
        if broken is not None:
            self._broken()
            res.setup_error = broken
            return
        if res.killed_for != "output":
            cap.drain(out_r, True)
            cap.drain(err_r, False)
            if cap.over:
                res.killed_for = "output"
        while True:
            try:
                chunk = os.read(ep_r, 4096)
            except BlockingIOError:
                break
            if not chunk:
                break
            report += chunk
        res.stdout, res.stderr = b"".join(cap.out), b"".join(cap.err)
        res.output_bytes = cap.out_len
        _report(res, report, status_msg, tree_cpu, cgroup)


def _kill(pid: int | None, cgroup) -> None:
    """The run's cgroup (everything it started), then the child's process group."""
    if cgroup is not None:
        cgroup.kill()
    if pid is not None:
        for fn in (os.killpg, os.kill):  # the group, and the child itself if setsid() not reached
            try:
                fn(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _report(res: Outcome, report: bytearray, status_msg: bytes, tree_cpu: float, cgroup) -> None:
    """Exit status, CPU time and peak memory from the zygote's ``S`` line, or the cgroup's
    counters where there is one (as process.py does for the exec path)."""
    for line in bytes(report).decode(errors="replace").splitlines():
        if line.startswith("E "):
            res.setup_error = line[2:]
    fields = status_msg.split()
    status = int(fields[1])
    if cgroup is not None:
        res.cpu_time_s = cgroup.cpu_s()
        res.memory_kb = max(cgroup.memory_peak_kb(), 0)
        res.oom_killed = cgroup.oom_killed()
        res.in_cgroup = True
    else:
        res.cpu_time_s = max((int(fields[2]) + int(fields[3])) / 1e6, tree_cpu)
        res.memory_kb = int(fields[4])
    if os.WIFSIGNALED(status):
        res.signal = os.WTERMSIG(status)
    else:
        res.exit_code = os.WEXITSTATUS(status)
