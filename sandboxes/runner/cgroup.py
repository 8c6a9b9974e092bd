"""One control group per run: CPU time, memory and pids of the whole process tree (stdlib only).

Why a cgroup and not rlimits: rlimits are per process. Children the program never waits
for keep their CPU time out of its rusage, RLIMIT_AS caps address space (threads and
runtimes that reserve large virtual ranges fail long before they use memory) and
RLIMIT_NPROC counts per uid. A cgroup counts the tree: ``cpuacct.usage``/``cpu.stat``
is the exact CPU time (ns/us) of every process that ever ran in it, the memory
controller charges every page the run touches (anonymous, tmpfs and /dev/shm files,
SysV shm), ``pids.max`` bounds processes+threads, and the whole group can be killed as
one at the end.

The backend delegates a directory per slot/container (``CgroupDirs``: one dir per v1
controller, or one v2 dir with memory+pids enabled for its children); this module
creates ``run-<n>`` below it for each run, and the spawn shim writes the program's pid
into the run's ``cgroup.procs`` files before it drops privileges and execs, so no
instruction of the program runs outside its group.
"""

from __future__ import annotations

import errno
import os
import signal
import time
from dataclasses import dataclass

# pids first: a run's process joins its hierarchies in this order, so every process that
# has begun to join is counted in ``pids.current`` (the cheap emptiness check of ``kill``).
# No freezer: the kill stops forks with ``pids.max`` 0 instead (one hierarchy less to make,
# join and remove per run).
V1_CONTROLLERS = ("pids", "cpuacct", "memory")
_V1_REQUIRED = V1_CONTROLLERS


class CgroupError(OSError):
    """A run cgroup could not be created or removed (an internal error of the sandbox)."""


@dataclass(frozen=True)
class CgroupDirs:
    """The delegated parent dirs: ``version`` 2 uses ``dirs['unified']``, 1 one dir per controller."""

    version: int
    dirs: dict

    @classmethod
    def parse(cls, specs: list[str]) -> "CgroupDirs | None":
        """From agent arguments ``KEY=DIR`` (KEY: unified, or a v1 controller name)."""
        if not specs:
            return None
        dirs = {}
        for spec in specs:
            key, sep, path = spec.partition("=")
            if not sep or not path:
                raise ValueError(f"--cgroup expects KEY=DIR, got {spec!r}")
            dirs[key] = path
        if "unified" in dirs:
            return cls(2, {"unified": dirs["unified"]})
        missing = [c for c in _V1_REQUIRED if c not in dirs]
        if missing:
            raise ValueError(f"--cgroup: v1 needs {', '.join(_V1_REQUIRED)}; missing {', '.join(missing)}")
        return cls(1, {k: dirs[k] for k in V1_CONTROLLERS})  # (another v1 controller: ignored)

    def to_args(self) -> list[str]:
        out = []
        for key, path in self.dirs.items():
            out += ["--cgroup", f"{key}={path}"]
        return out

    @property
    def label(self) -> str:
        return f"cgroup-v{self.version}"


def _write(path: str, value: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


_MEMSW: dict[str, bool] = {}


def _has_memsw(group: str) -> bool:
    """Whether the v1 memory hierarchy has swap accounting (the same for every group under
    one parent: looked up once per parent)."""
    parent = os.path.dirname(group)
    if parent not in _MEMSW:
        _MEMSW[parent] = os.path.exists(f"{group}/memory.memsw.limit_in_bytes")
    return _MEMSW[parent]


_WHOLE = 2048  # a first read shorter than this was the whole file (see read_text)


def read_text(path: str) -> str:
    """A cgroup (or procfs) file's text: open, read to EOF, close (no buffered file object).
    Such a file is a seq_file, which hands a read everything that fits in its page-sized buffer:
    a first read under ``_WHOLE`` bytes is the whole file, so a counter costs 3 syscalls;
    longer ones (a pid list) are read on to EOF."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunk = os.read(fd, 65536)
        if len(chunk) < _WHOLE:
            return chunk.decode()
        chunks = [chunk]
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks).decode()


def _keyed(path: str) -> dict[str, int]:
    """A flat-keyed file (memory.events, cpu.stat, memory.oom_control) as a dict."""
    out = {}
    try:
        for line in read_text(path).splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1].lstrip("-").isdigit():
                out[parts[0]] = int(parts[1])
    except OSError:
        pass
    return out


class RunCgroup:
    """The control group of one run. Create, hand ``procs_files`` to the spawner, poll, kill, remove."""

    def __init__(self, parent: CgroupDirs, name: str, *, memory_bytes: int | None = None,
                 max_pids: int | None = None):
        """Make the group; limits now, or later with ``set_limits`` (a spare made ahead of time)."""
        self.version = parent.version
        # (v1: in the join order of V1_CONTROLLERS, pids first, whatever order the parent's are in)
        keys = sorted(parent.dirs, key=lambda k: V1_CONTROLLERS.index(k) if k in V1_CONTROLLERS else -1)
        self.paths = {k: os.path.join(parent.dirs[k], name) for k in keys}
        self._empty = False
        self.limits: tuple[int, int] | None = None  # (memory bytes, pids) once set
        made = []
        try:
            for path in self.paths.values():
                try:
                    os.mkdir(path, 0o755)
                except FileExistsError:  # left by a crashed run of a previous agent: start clean
                    _kill_and_rmdir_one(path, self.version)
                    os.mkdir(path, 0o755)
                made.append(path)
            if memory_bytes is not None and max_pids is not None:
                self._set_limits(memory_bytes, max_pids)
                self.limits = (memory_bytes, max_pids)
        except OSError as exc:
            for path in made:
                try:
                    os.rmdir(path)
                except OSError:
                    pass
            raise CgroupError(exc.errno or errno.EIO, f"cannot set up run cgroup {name}: {exc}") from exc

    def set_limits(self, memory_bytes: int, max_pids: int) -> None:
        try:
            self._set_limits(memory_bytes, max_pids)
            self.limits = (memory_bytes, max_pids)
        except OSError as exc:
            self.limits = None
            raise CgroupError(exc.errno or errno.EIO, f"cannot set run cgroup limits: {exc}") from exc

    def _set_limits(self, memory_bytes: int, max_pids: int) -> None:
        if self.version == 2:
            d = self.paths["unified"]
            _write(f"{d}/memory.max", str(memory_bytes))
            if os.path.exists(f"{d}/memory.swap.max"):
                _write(f"{d}/memory.swap.max", "0")
            _write(f"{d}/pids.max", str(max_pids))
            return
        mem = self.paths["memory"]
        files = [f"{mem}/memory.limit_in_bytes"]
        if _has_memsw(mem):  # no swapping past the limit
            # memsw may never be below the memory limit: raise it first, lower it last (a
            # spare group made ahead of time carries the previous run's limits).
            memsw = f"{mem}/memory.memsw.limit_in_bytes"
            files = [memsw, files[0]] if self.limits and memory_bytes > self.limits[0] else [files[0], memsw]
        for path in files:
            _write(path, str(memory_bytes))
        _write(f"{self.paths['pids']}/pids.max", str(max_pids))

    @property
    def procs_files(self) -> list[str]:
        """Where the program's process writes "0" to move itself in (before it drops privileges).

        v1: the ``tasks`` file. Moving the calling thread itself ("0") is the one migration
        the kernel does without write-locking the global threadgroup rwsem, which otherwise
        waits for an RCU grace period (about 1 ms idle, several under load) on every run. The
        process is single-threaded there (just forked), so the thread is the whole process.
        v2: ``cgroup.procs``.
        """
        name = "tasks" if self.version == 1 else "cgroup.procs"
        return [os.path.join(p, name) for p in self.paths.values()]

    # -- reading -----------------------------------------------------------------------
    def cpu_s(self) -> float:
        """CPU time (user+system) of every process that ran in the group, exact."""
        try:
            if self.version == 2:
                return _keyed(f"{self.paths['unified']}/cpu.stat").get("usage_usec", 0) / 1e6
            return int(read_text(f"{self.paths['cpuacct']}/cpuacct.usage")) / 1e9
        except (OSError, ValueError):
            return 0.0

    def memory_peak_kb(self) -> int:
        base = self.paths["unified" if self.version == 2 else "memory"]
        name = "memory.peak" if self.version == 2 else "memory.max_usage_in_bytes"
        try:
            return int(read_text(f"{base}/{name}")) // 1024
        except (OSError, ValueError):
            return 0

    def oom_killed(self) -> bool:
        """Did the kernel kill something of the run because the group hit its memory limit?"""
        if self.version == 2:
            return _keyed(f"{self.paths['unified']}/memory.events").get("oom_kill", 0) > 0
        return _keyed(f"{self.paths['memory']}/memory.oom_control").get("oom_kill", 0) > 0

    def pids(self) -> list[int]:
        path = self.paths["unified" if self.version == 2 else "pids"]
        return _pids(path)

    # -- ending ------------------------------------------------------------------------
    def kill(self, timeout_s: float = 10.0) -> None:
        """SIGKILL every process in the group until it is empty (forks racing the kill included).

        Once empty it stays empty: only a member can fork into it, and only we can write it.
        """
        if self._empty:
            return
        if self.version == 2:
            kill_v2(self.paths["unified"], timeout_s)
        else:
            kill_v1(self.paths, timeout_s)
        self._empty = True

    def remove(self, timeout_s: float = 10.0) -> None:
        """Kill what is left and remove the group's dirs (their counters go with them)."""
        self.kill(timeout_s)
        for path in self.paths.values():
            rmdir_retry(path, timeout_s)


def _pids(path: str) -> list[int]:
    try:
        return [int(p) for p in read_text(os.path.join(path, "cgroup.procs")).split()]
    except (OSError, ValueError):
        return []


def _kill_pids(pids) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def kill_v2(path: str, timeout_s: float) -> None:
    kill_file = os.path.join(path, "cgroup.kill")
    deadline = time.monotonic() + timeout_s
    pause = 0.0005
    while True:
        if not os.path.exists(path):
            return
        if _keyed(os.path.join(path, "cgroup.events")).get("populated", 0) == 0:
            return
        if os.path.exists(kill_file):
            try:
                _write(kill_file, "1")
            except OSError:
                _kill_pids(_pids(path))
        else:  # kernels before 5.14
            _kill_pids(_pids(path))
        if time.monotonic() > deadline:
            raise CgroupError(errno.EBUSY, f"processes survive in {path}: {_pids(path)}")
        time.sleep(pause)
        pause = min(pause * 2, 0.02)


def _pids_current(path: str) -> int | None:
    """``pids.current`` of a v1 pids group: every process in it, zombies not yet reaped
    included (None if unreadable). A plain counter read; reading ``cgroup.procs`` in v1
    builds a pid list the kernel frees a second later from a worker thread."""
    try:
        return int(read_text(os.path.join(path, "pids.current")))
    except (OSError, ValueError):
        return None


def kill_v1(paths: dict, timeout_s: float) -> None:
    """Stop forks (``pids.max`` 0), then SIGKILL every process listed until none is left.

    With forks refused, no process can join the group between reading its members and the
    kill, so each round kills all there is; the loop only waits for the dying. A process
    joins ``pids`` first (``V1_CONTROLLERS``), so a zero ``pids.current`` proves the whole
    run empty without listing anything, and an empty ``pids`` list proves it too (a process
    that exited but is not reaped yet is counted, not listed)."""
    pids_dir = paths["pids"]
    if _pids_current(pids_dir) == 0 or not _pids(pids_dir):
        return  # (counted but not listed: exited, not yet reaped)
    deadline = time.monotonic() + timeout_s
    pause = 0.0005
    stopped = False
    while True:
        members = set()
        for path in paths.values():
            members.update(_pids(path))
        if not members:
            return
        if not stopped:  # once: then re-read, as a fork may have passed just before it
            try:
                _write(os.path.join(pids_dir, "pids.max"), "0")
                stopped = True
                continue
            except OSError:
                stopped = True  # killed anyway, round after round
        _kill_pids(members)
        if time.monotonic() > deadline:
            raise CgroupError(errno.EBUSY, f"processes survive in {paths}: {sorted(members)}")
        time.sleep(pause)
        pause = min(pause * 2, 0.02)


def rmdir_retry(path: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            # EBUSY while an exiting task is still being released by the kernel.
            if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                raise CgroupError(exc.errno, f"cannot remove run cgroup {path}: {exc}") from exc
            time.sleep(0.001)


def _kill_and_rmdir_one(path: str, version: int) -> None:
    if version == 2:
        kill_v2(path, 5.0)
    else:
        _kill_pids(_pids(path))
    rmdir_retry(path, 5.0)


def sweep(parent: CgroupDirs) -> None:
    """Remove every ``run-*`` group left under the parent (an agent that died mid-run)."""
    for d in parent.dirs.values():
        try:
            names = [n for n in os.listdir(d) if n.startswith("run-")]
        except OSError:
            continue
        for name in names:
            try:
                _kill_and_rmdir_one(os.path.join(d, name), parent.version)
            except OSError:
                pass
