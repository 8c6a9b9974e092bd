"""The execution engine behind every backend: compile once, run one, clean up (stdlib only).

``Runner`` takes the plain-dict requests of PROTOCOL.md (``compile`` and ``run``) and
returns plain-dict replies. It knows nothing about bwrap, Docker or Lambda: the backend
puts it somewhere isolated (namespaces, a container, a Lambda sandbox) and this code
adds the per-run layer (fresh scratch dir, run uid, rlimits, kill-everything-after).

Each compile/run gets ``scratch_root/box-<n>`` (0700, owned by the run uid), created
fresh and removed afterwards with every process of the run uid killed first, so nothing
survives from one run to the next. The host never follows a path inside a box: inputs
are written into a box the runner just created (O_EXCL|O_NOFOLLOW), outputs travel by
pipe, the artifact is read with O_NOFOLLOW and must be a regular file.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import fcntl
import os
import signal
import stat
import sys
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from sandboxes.languages import Language, get_language
from sandboxes.runner import cgroup as cgroups
from sandboxes.runner.classify import classify
from sandboxes.runner.limits import Limits, rlimits_for
from sandboxes.runner import pch, reset, shim
from sandboxes.runner.pyfork import NOT_FORKABLE, NOT_FORKABLE_MESSAGE, ForkServer, ForkServerError
from sandboxes.runner.process import Identity, Outcome, run_process
from sandboxes.runner.spawn import SpawnServer
from sandboxes.runner.watch import run_idle_limit

MAX_ARTIFACT_BYTES = 256 << 20
COMPILE_LOG_BYTES = 64 << 10
# A compile whose CPU time has not grown for this long is stopped (CE): a compiler is never
# idle, but one told to #include /dev/ptmx or /dev/stdin waits, using no CPU, until the
# compile wall limit (40 s) while holding a slot (code review 5: a 35-byte source made
# another client's 0.06 s answer take 38.6 s). Generous for a cold disk or a loaded machine.
COMPILE_IDLE_S = 3.0
_CACHE_ENTRIES = 16
_CACHE_BYTES = 512 << 20


class RequestError(ValueError):
    """A malformed request (reported to the host as ``bad_request``)."""


class ArtifactMissing(LookupError):
    """A run named an artifact by sha256 that this runner does not hold."""


@dataclass
class RunnerConfig:
    scratch_root: str
    uid: int | None = None  # None: run as the caller (Lambda, unprivileged containers)
    gid: int | None = None
    wipe_dirs: list[str] = field(default_factory=list)  # e.g. /dev/shm, emptied after each run
    reap_orphans: bool = False  # agent mode: we are a subreaper and own every child
    path_env: str = "/usr/local/bin:/usr/bin:/bin"
    # Without a run uid (Lambda) runs can write wherever the runner can: entries that
    # appear in these dirs during a run are removed after it (entries present at start stay).
    wipe_new_in: list[str] = field(default_factory=list)
    # How runs are started: "server" (a long-lived spawn_shim --serve forks each run: one
    # exec a run), "shim" (posix_spawn of spawn_shim.c: two execs, ~0.5 ms more), "fork"
    # (os.fork, ~10 ms on these VMs), "auto" (server, or shim where runs share our uid and
    # the stray sweep would kill a long-lived server; fork when no C compiler).
    spawn: str = "auto"
    # The runner owns its IPC namespace (a slot, a container, a Lambda function): empty it
    # (SysV shm/msg/sem, POSIX queues) after every run. Never on a shared host namespace.
    clear_ipc: bool = False
    # Without a run uid (Lambda): after every run, kill every process of our uid that is
    # not us or an ancestor (a daemon that left the run's session has nothing else to name it).
    sweep_own_uid: bool = False
    # The control-group dirs delegated to this runner (one run-<n> group per compile/run
    # below them); None: no cgroup, rlimits and a /proc scan instead (see limits.py).
    cgroup: cgroups.CgroupDirs | None = None
    # Python runs as forks of a per-runner zygote (pyfork.py) instead of an exec of
    # python3 each; the exec path stays the fallback (and is used where the zygote cannot
    # start). Off for runners without a run uid (Lambda): see THREAT_MODEL.md.
    python_fork_server: bool = False
    # Read-only dir of precompiled headers built by trusted code (pch.py); None: none.
    pch_root: str | None = None


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str, what: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (ValueError, TypeError) as exc:
        raise RequestError(f"{what}: invalid base64") from exc


def _plain_name(name: str) -> str:
    if not name or "/" in name or name in (".", "..") or "\0" in name:
        raise RequestError(f"file name {name!r} must be a plain name (no '/', not '.' or '..')")
    return name


class Runner:
    def __init__(self, cfg: RunnerConfig):
        self.cfg = cfg
        self.ident = Identity(cfg.uid, cfg.gid)
        self._counter = itertools.count()
        self._artifacts: OrderedDict[str, tuple[str, bytes]] = OrderedDict()
        os.makedirs(cfg.scratch_root, exist_ok=True)
        if cfg.spawn not in ("auto", "server", "shim", "fork"):
            raise ValueError(f"spawn must be auto, server, shim or fork, not {cfg.spawn!r}")
        self._preexisting = {d: self._entries(d) for d in cfg.wipe_new_in}
        self.leftover: list[str] = []  # what the last clean-up could not remove (reset.leftovers)
        self.pch = pch.Catalog(cfg.pch_root)
        self._spare: cgroups.RunCgroup | None = None
        self._retired: list[cgroups.RunCgroup] = []
        self._last_limits: tuple[int, int] | None = None
        self._deferred: list[str] = []  # boxes whose reset waits for finish_reset
        self._kill_failed = ""
        self._ipc_found = False  # the last clear found IPC objects: the check must look again
        if cfg.cgroup is not None:
            cgroups.sweep(cfg.cgroup)  # groups a previous agent in this slot left mid-run
        self.pyfork: ForkServer | None = None
        self._pycode: OrderedDict[str, bytes] = OrderedDict()  # source sha256 -> marshalled code
        self._unforkable: set[str] = set()  # sources whose code object cannot travel (exec path)
        if cfg.python_fork_server and cfg.uid is not None:
            py = get_language("python")
            self.pyfork = ForkServer(py.run_argv[0], self._run_env(cfg.scratch_root, py),
                                     (py.stack_mb or 0) << 20)
        self.shim = None
        self.server: SpawnServer | None = None
        if cfg.spawn != "fork":
            # Private (0700) dir of ours beside the boxes; runs of another uid cannot touch it.
            self.shim = shim.build(os.path.join(cfg.scratch_root, f".runner-{os.getpid()}"))
            if self.shim is None and cfg.spawn in ("shim", "server"):
                raise RuntimeError(f"spawn={cfg.spawn!r} but the spawn shim could not be built (no C compiler?)")
            if self.shim is not None and (cfg.spawn == "server" or (cfg.spawn == "auto" and not cfg.sweep_own_uid)):
                self.server = SpawnServer(self.shim)
        # what the box's tmpfs mounts use now that our own files are in place (reset.SpaceCheck)
        self.space = reset.SpaceCheck([cfg.scratch_root, *cfg.wipe_dirs])

    @property
    def spawn_mode(self) -> str:
        return "server" if self.server else "shim" if self.shim else "fork"

    def close(self) -> None:
        """Stop the spawn server (it also ends with this process, or at EOF)."""
        if self.server is not None:
            self.server.close()

    @property
    def accounting(self) -> str:
        """How a run's CPU time, memory and processes are counted: cgroup-v1/-v2, or rlimit."""
        return self.cfg.cgroup.label if self.cfg.cgroup is not None else "rlimit"

    # -- requests ---------------------------------------------------------------------
    def compile(self, req: dict) -> dict:
        self.leftover = []
        return self._tag_leftover(self._compile(req))

    def run(self, req: dict, fds: list[int] | None = None) -> dict:
        self.leftover = []
        return self._tag_leftover(self._run(req, fds))

    # -- reset after the reply (agent mode, when the host asked for it in hello) -----------
    # The run's processes are dead before its reply (its group was emptied, or its uid
    # swept); what moves after the reply is the rest of the reset: IPC clear, box and wipe
    # dirs removed, scratch root swept, and the check. The agent reads no next request
    # before ``finish_reset`` has run, and the host reuses the sandbox only after the
    # frame that carries its result, so no later run can see the state in between.
    defer_reset = False
    # Run outputs as raw bytes after the reply's JSON (the host asked in hello; the frame
    # carries them, protocol.Channel), instead of base64 strings inside it.
    raw_output = False

    def finish_reset(self) -> list[str]:
        """Clean up after the last compile/run (deferred); returns what was left over."""
        self.leftover = []
        boxes, self._deferred = self._deferred, []
        for box in boxes:
            self._reset(box)
        if self._kill_failed:
            self.leftover.append(self._kill_failed)
            self._kill_failed = ""
        return list(self.leftover)

    def _tag_leftover(self, reply: dict) -> dict:
        """A reply whose clean-up left something says so: the backend must not reuse this
        sandbox (the result itself is valid: the run was over before the clean-up)."""
        if self.leftover:
            reply["leftover"] = list(self.leftover)
        return reply

    def _compile(self, req: dict) -> dict:
        lang = self._language(req.get("language"))
        code = req.get("code")
        if not isinstance(code, str):
            raise RequestError("compile: 'code' must be a string")
        lim = self._limits(req.get("limits"), compile_step=True)
        src = code.encode()
        if lang.compile_argv is None:
            art = self._remember(lang.artifact_language, src)
            return {"status": "OK", "log": "", "wall_time_s": 0.0, "artifact": art}
        base = [a.format(source=lang.source_name, output=lang.artifact_name) for a in lang.compile_argv]
        offer = self.pch.offer(lang, src)
        if offer is None:
            return self._compile_in_box(lang, src, lim, base)[0]
        reply, why, deps = self._compile_in_box(lang, src, lim, offer.argv(base), deps=True)
        if reply["status"] == "OK":
            reply["pch"] = "used" if offer.used(deps) else "not_used"
            return reply
        if reply["status"] == "IE" or why == "TLE":
            return reply  # a timed-out compile is not tried again: it would double the wait
        # Failed with the PCH offered: the verdict is the plain compile's (a real error
        # fails again with the same diagnostics; an unreadable .gch no longer matters).
        again, _, _ = self._compile_in_box(lang, src, lim, base)
        again["wall_time_s"] = round(again["wall_time_s"] + reply["wall_time_s"], 6)
        again["pch"] = "retried"
        if again["status"] == "OK":  # the PCH, not the source, failed: worth a line in the log
            print(f"runner: compile failed with the PCH ({why}) and passed without it: "
                  f"{reply['log'][-500:]}", file=sys.stderr)
        return again

    def _compile_in_box(self, lang: Language, src: bytes, lim: Limits, argv: list[str],
                        deps: bool = False) -> tuple[dict, str, bytes | None]:
        """One compile in a fresh box: (reply, classify's status, the deps file if asked)."""
        box = self._new_box()
        try:
            self._write(box, lang.source_name, src, mode=0o644)
            if self._forkable(lang):
                reply = self._compile_forked(box, lang, lim, src)
                if reply is not None:
                    return reply, reply["status"], None
            out = self._exec(argv, box, lang, lim, stdin_fd=None, idle_limit_s=COMPILE_IDLE_S)
            deps = self._read_artifact(box, pch.DEPS_NAME, max_bytes=1 << 20) if deps else None
            log = (out.stdout + out.stderr)[:COMPILE_LOG_BYTES].decode(errors="replace")
            if out.setup_error:
                return {"status": "IE", "log": out.setup_error, "wall_time_s": out.wall_time_s,
                        "artifact": None}, "IE", deps
            status, msg = classify(out, lim)
            if status != "OK":
                return {"status": "CE", "log": (log + ("\n" if log else "") + msg).strip(),
                        "wall_time_s": out.wall_time_s, "artifact": None}, status, deps
            data = self._read_artifact(box, lang.artifact_name)
            if data is None:
                return {"status": "CE", "log": log + "\ncompiler produced no program",
                        "wall_time_s": out.wall_time_s, "artifact": None}, "CE", deps
            art = self._remember(lang.artifact_language, data)
            return {"status": "OK", "log": log, "wall_time_s": out.wall_time_s, "artifact": art}, "OK", deps
        finally:
            self._cleanup(box)

    def _run(self, req: dict, fds: list[int] | None = None) -> dict:
        fds = fds or []
        prog = req.get("program") or {}
        lang = self._language(prog.get("language"))
        data = self._program_bytes(prog)
        lim = self._limits(req.get("limits"), compile_step=False)
        args = req.get("args") or []
        if not all(isinstance(a, str) for a in args):
            raise RequestError("run: 'args' must be a list of strings")
        box = self._new_box()
        stdin_fd = None
        try:
            self._write(box, lang.artifact_name, data, mode=0o755 if lang.artifact_language == "binary" else 0o644)
            for name, src in (req.get("files") or {}).items():
                self._write(box, _plain_name(name), self._source_bytes(src, fds, f"files[{name}]"), mode=0o644)
            stdin_fd = self._stdin_fd(req.get("stdin"), fds)
            argv = [a.format(program=os.path.join(box, lang.artifact_name)) for a in lang.run_argv] + list(args)
            out = None
            if self._forkable(lang):
                out = self._run_forked(box, lang, lim, stdin_fd, data, list(args))
            if out is None:  # the exec path: no fork server, or the program does not compile
                out = self._exec(argv, box, lang, lim, stdin_fd=stdin_fd,
                                 idle_limit_s=run_idle_limit(lim.cpu_time_s, lim.wall_time_s))
        finally:
            if stdin_fd is not None:
                os.close(stdin_fd)
            self._cleanup(box)
        status, msg = classify(out, lim)
        return {
            "status": status, "exit_code": out.exit_code, "signal": out.signal,
            "cpu_time_s": round(out.cpu_time_s, 6), "wall_time_s": round(out.wall_time_s, 6),
            "memory_kb": out.memory_kb, "output_bytes": out.output_bytes,
            "message": msg,
            **({"stdout": out.stdout, "stderr": out.stderr} if self.raw_output
               else {"stdout_b64": _b64(out.stdout), "stderr_b64": _b64(out.stderr)}),
        }

    # -- pieces -------------------------------------------------------------------------
    @staticmethod
    def _language(name) -> Language:
        try:
            return get_language(name)
        except ValueError as exc:
            raise RequestError(str(exc)) from None

    @staticmethod
    def _limits(data, *, compile_step: bool) -> Limits:
        try:
            return Limits.from_dict(data)
        except (TypeError, ValueError) as exc:
            raise RequestError(f"{'compile' if compile_step else 'run'}: bad limits: {exc}") from None

    def _remember(self, language: str, data: bytes) -> dict:
        sha = hashlib.sha256(data).hexdigest()
        self._artifacts[sha] = (language, data)
        self._artifacts.move_to_end(sha)
        total = sum(len(d) for _, d in self._artifacts.values())
        while len(self._artifacts) > _CACHE_ENTRIES or (total > _CACHE_BYTES and len(self._artifacts) > 1):
            _, (_, old) = self._artifacts.popitem(last=False)
            total -= len(old)
        return {"language": language, "sha256": sha, "data_b64": _b64(data)}

    def _program_bytes(self, prog: dict) -> bytes:
        sha = prog.get("sha256")
        if prog.get("data_b64") is not None:
            data = _unb64(prog["data_b64"], "program")
            if sha and hashlib.sha256(data).hexdigest() != sha:
                raise RequestError("program: data does not match its sha256")
            self._remember(prog.get("language"), data)
            code = prog.get("pycode_b64")
            if code is not None and self.pyfork is not None and sha:
                # Another slot's compile of this source (loaded only inside the run's fork).
                if not isinstance(code, str) or len(code) > MAX_ARTIFACT_BYTES:
                    raise RequestError("program: 'pycode_b64' must be a base64 string")
                self._keep_code(sha, _unb64(code, "program code object"))
            return data
        if sha and sha in self._artifacts:
            self._artifacts.move_to_end(sha)
            return self._artifacts[sha][1]
        raise ArtifactMissing(f"artifact {sha} not held by this runner; send data_b64")

    def _source_bytes(self, src, fds: list[int], what: str) -> bytes:
        if not isinstance(src, dict):
            raise RequestError(f"{what}: a data source object is required")
        if "data_b64" in src:
            return _unb64(src["data_b64"], what)
        fd = self._source_fd(src, fds, what)
        try:
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)

    def _source_fd(self, src: dict, fds: list[int], what: str) -> int:
        """An fd the runner owns (caller closes) for an fd/path source."""
        if "fd" in src:
            i = src["fd"]
            if not isinstance(i, int) or not 0 <= i < len(fds):
                raise RequestError(f"{what}: fd index {i!r} out of range ({len(fds)} fds attached)")
            return os.dup(fds[i])
        if "path" in src:
            try:
                return os.open(src["path"], os.O_RDONLY | os.O_CLOEXEC)
            except OSError as exc:
                raise RequestError(f"{what}: cannot open {src['path']!r}: {exc.strerror}") from None
        raise RequestError(f"{what}: expected one of data_b64, fd, path")

    def _stdin_fd(self, src, fds: list[int]) -> int:
        if src is None:
            return os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
        if isinstance(src, dict) and "data_b64" in src:
            # A memfd, not a pipe: no writer thread, and a multi-MB input cannot deadlock
            # against the output we are reading.
            data = _unb64(src["data_b64"], "stdin")
            # Sealed against writes and resizing, so the run cannot change its input through
            # /proc/self/fd/0 (reopened read-write) either.
            fd = os.memfd_create("stdin", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS,
                        fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL)
            os.fchmod(fd, 0o444)  # a memfd is 0777 by default: no reopening it read-write
            os.lseek(fd, 0, os.SEEK_SET)
            return fd
        fd = self._source_fd(src, fds, "stdin")
        os.lseek(fd, 0, os.SEEK_SET)
        return fd

    def _run_env(self, box: str, lang: Language) -> dict[str, str]:
        return {"PATH": self.cfg.path_env, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
                "HOME": box, "TMPDIR": box, **lang.env}

    # -- Python through the fork server (pyfork.py); None: use the exec path ---------------
    def _forkable(self, lang: Language) -> bool:
        return self.pyfork is not None and lang.name == "python"

    def _forked(self, op: str, box: str, lang: Language, lim: Limits, stdin_fd: int | None,
                code: bytes, args: list[str]) -> Outcome | None:
        """``_exec``'s twin for a fork of the zygote. None: no zygote can be started here
        (the runner falls back to the exec path for good and says why on stderr)."""
        if not self.pyfork.alive():
            try:
                self.pyfork.start()
            except ForkServerError as exc:
                print(f"runner: Python fork server unavailable, using exec: {exc}", file=sys.stderr)
                self.pyfork = None
                return None
        own_stdin = stdin_fd is None
        if own_stdin:
            stdin_fd = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
        group = None
        try:
            if self.cfg.cgroup is not None:
                try:
                    group = self._take_group(lim)
                except cgroups.CgroupError as exc:
                    return Outcome(setup_error=str(exc))
            return self.pyfork.run(
                op=op, box=box, path=os.path.join(box, lang.artifact_name), args=args, code=code,
                env=self._run_env(box, lang), stdin_fd=stdin_fd,
                rlimits=rlimits_for(lim, stack_mb=lang.stack_mb, cgroup=group is not None),
                ident=self.ident, cpu_limit_s=lim.cpu_time_s, wall_limit_s=lim.wall_time_s,
                output_cap=lim.output_bytes if op == "run" else MAX_ARTIFACT_BYTES,
                stderr_cap=lim.stderr_bytes, cgroup=group,
                idle_limit_s=run_idle_limit(lim.cpu_time_s, lim.wall_time_s) if op == "run" else COMPILE_IDLE_S)
        finally:
            if group is not None:
                group.kill()
                self._retired.append(group)
            if own_stdin:
                os.close(stdin_fd)

    def _compile_forked(self, box: str, lang: Language, lim: Limits, src: bytes) -> dict | None:
        """The compile step as a fork: the code object comes back marshalled (kept here by
        the source's sha256) and the artifact stays the source, as on the exec path."""
        out = self._forked("compile", box, lang, lim, None, b"", [])
        if out is None:
            return None
        if _not_forkable(out):
            self._mark_unforkable(hashlib.sha256(src).hexdigest())
            return None
        if out.setup_error:
            return {"status": "IE", "log": out.setup_error, "wall_time_s": out.wall_time_s, "artifact": None}
        status, msg = classify(out, lim)
        if status != "OK":
            log = out.stderr[:COMPILE_LOG_BYTES].decode(errors="replace")
            return {"status": "CE", "log": (log + ("\n" if log else "") + msg).strip(),
                    "wall_time_s": out.wall_time_s, "artifact": None}
        self._keep_code(hashlib.sha256(src).hexdigest(), out.stdout)
        art = self._remember(lang.artifact_language, src)
        # The code object goes back too: the host sends it with the source to slots that
        # did not compile it, so they fork the run without a compile fork of their own.
        return {"status": "OK", "log": "", "wall_time_s": out.wall_time_s, "artifact": art,
                "pycode_b64": _b64(out.stdout)}

    def _mark_unforkable(self, sha: str) -> None:
        """A source whose code object cannot travel: its runs take the exec path at once."""
        if len(self._unforkable) >= 1024:
            self._unforkable.clear()
        self._unforkable.add(sha)

    def _keep_code(self, sha: str, code: bytes) -> None:
        self._pycode[sha] = code
        self._pycode.move_to_end(sha)
        while len(self._pycode) > _CACHE_ENTRIES:
            self._pycode.popitem(last=False)

    def _run_forked(self, box: str, lang: Language, lim: Limits, stdin_fd: int, src: bytes,
                    args: list[str]) -> Outcome | None:
        """One test as a fork. The code object is compiled once per source and runner (a
        compile fork on a miss: runs may reach a runner that did not compile). None: use
        the exec path (no zygote, or a source that does not compile: the exec path reports
        that SyntaxError as the run's RE, as before)."""
        sha = hashlib.sha256(src).hexdigest()
        if sha in self._unforkable:
            return None
        code = self._pycode.get(sha)
        if code is None:
            comp = self._forked("compile", box, lang, lim, None, b"", [])
            if comp is None or comp.setup_error:
                return comp
            if classify(comp, lim)[0] != "OK":
                if _not_forkable(comp):
                    self._mark_unforkable(sha)
                return None
            self._keep_code(sha, comp.stdout)
            code = comp.stdout
        self._pycode.move_to_end(sha)
        return self._forked("run", box, lang, lim, stdin_fd, code, args)

    def _exec(self, argv, box: str, lang: Language, lim: Limits, stdin_fd: int | None,
              idle_limit_s: float | None = None) -> Outcome:
        env = self._run_env(box, lang)
        own_stdin = stdin_fd is None
        if own_stdin:
            stdin_fd = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
        group = None
        try:
            if self.cfg.cgroup is not None:
                try:
                    group = self._take_group(lim)
                except cgroups.CgroupError as exc:  # never run with weaker accounting than announced
                    return Outcome(setup_error=str(exc))
            return run_process(
                argv, env=env, cwd=box, stdin_fd=stdin_fd,
                rlimits=rlimits_for(lim, stack_mb=lang.stack_mb, cgroup=group is not None),
                ident=self.ident, cpu_limit_s=lim.cpu_time_s, wall_limit_s=lim.wall_time_s,
                output_cap=lim.output_bytes, stderr_cap=lim.stderr_bytes, shim=self.shim,
                cgroup=group, server=self.server, idle_limit_s=idle_limit_s)
        finally:
            if group is not None:
                group.kill()  # empty before the reply (run_process killed it: normally a no-op)
                self._retired.append(group)
            if own_stdin:
                os.close(stdin_fd)

    # -- run groups: made ahead and removed after the reply, off the request's path ---------
    def _take_group(self, lim: Limits) -> cgroups.RunCgroup:
        if self._spare is None or len(self._retired) > self._MAX_RETIRED:
            self.housekeeping()  # library use (no agent loop calls it after each reply)
        group, self._spare = self._spare, None
        if group is None:
            group = self._new_group()
        if group.limits != (lim.memory_bytes, lim.max_processes):  # the spare has the last run's
            group.set_limits(lim.memory_bytes, lim.max_processes)
        self._last_limits = (lim.memory_bytes, lim.max_processes)
        return group

    def _new_group(self) -> cgroups.RunCgroup:
        return cgroups.RunCgroup(self.cfg.cgroup, f"run-{os.getpid()}-{next(self._counter)}")

    _MAX_RETIRED = 8

    def housekeeping(self, busy=None) -> None:
        """Make the next run's group, then remove finished ones (the agent calls this after
        each reply). ``busy()`` true: a request is waiting, so removals (of empty groups,
        harmless meanwhile) wait for an idle moment, up to ``_MAX_RETIRED`` groups. A
        failure here is logged: the group was already empty, and the next run makes its
        own group or gets an IE."""
        if self.cfg.cgroup is None:
            return
        if self._spare is None:
            try:
                self._spare = self._new_group()
                if self._last_limits is not None:  # most runs of a batch share their limits
                    self._spare.set_limits(*self._last_limits)
            except cgroups.CgroupError as exc:
                print(f"runner: cannot make the next run group: {exc}", file=sys.stderr)
        while self._retired and (busy is None or len(self._retired) > self._MAX_RETIRED or not busy()):
            group = self._retired.pop()
            try:
                group.remove()
            except cgroups.CgroupError as exc:
                print(f"runner: {exc}", file=sys.stderr)

    def _new_box(self) -> str:
        box = os.path.join(self.cfg.scratch_root, f"box-{os.getpid()}-{next(self._counter)}")
        os.mkdir(box, 0o700)
        if self.cfg.uid is not None:
            os.chown(box, self.cfg.uid, self.cfg.gid if self.cfg.gid is not None else self.cfg.uid)
        return box

    def _write(self, box: str, name: str, data: bytes, *, mode: int) -> None:
        fd = os.open(os.path.join(box, name),
                     os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if self.cfg.uid is not None:
                os.fchown(fd, self.cfg.uid, self.cfg.gid if self.cfg.gid is not None else self.cfg.uid)
            os.fchmod(fd, mode)
        finally:
            os.close(fd)

    @staticmethod
    def _read_artifact(box: str, name: str, max_bytes: int = MAX_ARTIFACT_BYTES) -> bytes | None:
        try:
            fd = os.open(os.path.join(box, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
        except OSError:
            return None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes:
                return None
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)

    @staticmethod
    def _entries(d: str) -> set[str]:
        try:
            return set(os.listdir(d))
        except OSError:
            return set()

    # -- after every compile/run: nothing of it may survive --------------------------------
    def _cleanup(self, box: str) -> None:
        try:
            self._kill_leftovers()  # raises if processes survive: the request fails as IE
        except Exception as exc:
            self._kill_failed = f"processes survived the kill: {exc}"
            raise
        finally:
            if self.defer_reset:
                self._deferred.append(box)
            else:
                self._reset(box)

    def _kill_leftovers(self) -> None:
        """Before the reply: no process of the run may outlive it (its group is empty by now)."""
        if self.cfg.uid is not None and self.cfg.cgroup is None:
            # Without a run group nothing else names a daemon that left the run's session.
            # With one, ``_exec`` has already emptied the group, and every process of the
            # run uid is in it: the program joins it before it drops to the run uid, and
            # the run uid cannot write any cgroup.procs/tasks file to leave (root's, 0644).
            kill_uid(self.cfg.uid)
        if self.cfg.sweep_own_uid and self.cfg.uid is None:
            reset.kill_own_uid_strays()
        if self.cfg.reap_orphans:
            reset.reap_children()
        if self.cfg.clear_ipc:
            # Before the reply too: removing needs a child of the run uid, and no process of
            # that uid may be seen after a reply. After the kill, so an attached segment
            # marked for removal is freed now. Costs a few syscalls when nothing is there.
            self._ipc_found = reset.clear_ipc(self.cfg.uid) or self._ipc_found

    def _reset(self, box: str) -> None:
        """Everything but processes: IPC, files, then the check (``self.leftover``)."""
        ipc_found, self._ipc_found = self._ipc_found, False
        remove_box(box)
        found = False  # anything at all besides the runner's own entries
        for d in self.cfg.wipe_dirs:
            found = empty_dir(d) or found
        for d, keep in self._preexisting.items():
            for name in self._entries(d) - keep:
                path = os.path.join(d, name)
                if os.path.realpath(path) != os.path.realpath(self.cfg.scratch_root):
                    found = True
                    _remove(path)
        if self.cfg.uid is not None:
            # Anything the run uid managed to create elsewhere under the scratch root.
            for entry in os.scandir(self.cfg.scratch_root):
                if self._runner_owned(entry.name):
                    continue
                found = True  # ours or not: the check below looks again
                try:
                    if entry.stat(follow_symlinks=False).st_uid == self.cfg.uid:
                        _remove(entry.path)
                except FileNotFoundError:
                    pass
        elif self.cfg.sweep_own_uid:
            # Runs share our uid, so the scratch root is theirs to write too (e.g. a planted
            # name for the next box): everything but the runner's own entries goes.
            for entry in os.scandir(self.cfg.scratch_root):
                if not self._runner_owned(entry.name):
                    found = True
                    _remove(entry.path)
        if self.cfg.uid is not None or self.cfg.clear_ipc or self.cfg.sweep_own_uid:
            # What is checked again is only what the clean-up found something in: every
            # process of the run was dead before it looked and the agent makes nothing
            # there, so a place it found empty (IPC namespace, wiped dirs, scratch root with
            # only the runner's own entry and no box left) is still empty.
            self.leftover = reset.leftovers(
                ipc=ipc_found, empty_dirs=self.cfg.wipe_dirs if found else [],
                scratch_root=self.cfg.scratch_root if found else None,
                keep_in_scratch=self._runner_owned, space=self.space)
        if self.cfg.uid is not None:  # a dedicated run uid: its sockets are the run's
            left = reset.unix_sockets_left(self.cfg.uid)
            if left:
                self.leftover.append(left)

    @staticmethod
    def _runner_owned(name: str) -> bool:
        """The runner's own entry of the scratch root: its spawn shim dir (see __init__)."""
        return name == f".runner-{os.getpid()}"


def _not_forkable(out: Outcome) -> bool:
    """The compile fork said the code object cannot travel to a run fork (zygote.py's
    NOT_FORKABLE): the exec path compiles and runs that source."""
    return out.exit_code == NOT_FORKABLE and out.stderr.startswith(NOT_FORKABLE_MESSAGE.encode())


def _remove(path: str) -> None:
    try:
        reset.remove_tree(path)
    except OSError:  # what could not go is found by the check of leftovers after the reset
        pass


def empty_dir(path: str) -> bool:
    """Remove everything in ``path``; whether there was anything."""
    try:
        entries = list(os.scandir(path))
    except OSError:
        return False
    for e in entries:
        _remove(e.path)
    return bool(entries)


def remove_box(box: str) -> None:
    """``_remove(box)`` in fewer syscalls for the usual box (plain files only): one
    directory fd, ``unlinkat`` each entry (a symlink is unlinked, never followed); a
    subdirectory, or anything unexpected, leaves the rest to ``reset.remove_tree``."""
    try:
        fd = os.open(box, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        _remove(box)
        return
    try:
        with os.scandir(fd) as it:
            for entry in it:
                if entry.is_dir(follow_symlinks=False):
                    raise IsADirectoryError(entry.name)
                os.unlink(entry.name, dir_fd=fd)
        os.rmdir(box)
    except OSError:
        _remove(box)
    finally:
        os.close(fd)


def uid_pids(uid: int) -> list[int]:
    """Live processes (in our pid namespace) whose uid is ``uid``."""
    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid != uid:
                    continue
                with open(f"/proc/{name}/stat", "rb") as f:
                    state = f.read().rsplit(b")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if state != b"Z":  # a zombie holds nothing; its parent reaps it
                pids.append(int(name))
    return pids


def kill_uid(uid: int, timeout_s: float = 10.0) -> None:
    """Kill every process of ``uid``: a child drops to uid and sends kill(-1, SIGKILL).

    Why this way: a double-forked, setsid()'d daemon leaves the run's process group, but
    kill(-1) from the same uid reaches every process that uid may signal. Repeated until
    /proc shows none (a fork racing the first kill is caught by the next). Bounded by time,
    not by a count of attempts: a killed process that frees a large address space can take
    a while to leave /proc on a loaded host, and giving up early would fail a good run.
    """
    deadline = time.monotonic() + timeout_s
    pause = 0.001
    while uid_pids(uid):
        if time.monotonic() > deadline:
            raise RuntimeError(f"processes of uid {uid} survive kill(-1) for {timeout_s:.0f} s: "
                               f"{uid_pids(uid)}")
        reset.as_uid(uid, lambda: os.kill(-1, signal.SIGKILL))
        reset.reap_children()
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


