"""Run limits as plain data, and the rlimits a run's process gets (stdlib only).

Mirrors ``sandboxes.types.RunLimits`` (same names, same defaults) so the agent can run
without pydantic. Which limit is enforced how (``cgroup``: the run has its own control
group, ``sandboxes.runner.cgroup``; otherwise the rlimit fallback, e.g. AWS Lambda):

- CPU time: the agent polls the CPU time of the whole process tree (cgroup: its exact
  counter; fallback: a /proc scan) and kills everything at the limit; the verdict compares
  the same figure with the limit. RLIMIT_CPU is only a backstop well above the limit (1.5x,
  at least +1 s): set at the limit it fires early (it is checked at tick granularity).
- wall time: the agent kills the run at the deadline.
- memory: cgroup: the memory controller charges every page of the tree (anonymous,
  tmpfs and /dev/shm files, SysV shm) and the kernel kills in the group at the limit; no
  address-space cap, so threads and large virtual reservations work. Fallback: RLIMIT_AS
  per process.
- output: counted while reading the stdout pipe; the run is killed at the cap.
- processes/threads: cgroup pids.max for the tree, and RLIMIT_NPROC (per uid).
- file size: RLIMIT_FSIZE (SIGXFSZ); scratch dir size: the backend's tmpfs size; files in
  the scratch dir (and /dev/shm, local): the tmpfs's inode cap (``SCRATCH_INODES``), so a run
  cannot leave millions of empty files for the reset (and the next run) to remove.
- open files: RLIMIT_NOFILE. Core dumps: RLIMIT_CORE 0.
- stack: the language's size, or unlimited for native code (deep recursion is legal; the
  memory limit bounds it). Unlimited also gives threads glibc's default 2 MiB stacks
  instead of a stack the size of the memory limit each.
"""

from __future__ import annotations

import math
import resource
from dataclasses import asdict, dataclass, fields

# Files a box's tmpfs mounts may hold at once (their size caps bytes, not files): the
# backends mount them with these caps (nr_inodes). A run past them gets ENOSPC.
SCRATCH_INODES = 32768
SHM_INODES = 4096


@dataclass(frozen=True)
class Limits:
    cpu_time_s: float = 2.0
    wall_time_s: float = 6.0
    memory_mb: int = 256
    output_bytes: int = 64 << 20
    stderr_bytes: int = 64 << 10
    max_processes: int = 64
    file_size_bytes: int = 16 << 20
    open_files: int = 64

    @classmethod
    def from_dict(cls, data: dict | None) -> "Limits":
        """Build from a request's ``limits`` object; unknown keys are a clear error."""
        data = dict(data or {})
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown limit field(s): {', '.join(sorted(unknown))}")
        lim = cls(**data)
        if lim.cpu_time_s <= 0 or lim.wall_time_s <= 0:
            raise ValueError("cpu_time_s and wall_time_s must be > 0")
        if lim.memory_mb < 8 or lim.max_processes < 1 or lim.open_files < 8:
            raise ValueError("memory_mb >= 8, max_processes >= 1 and open_files >= 8 are required")
        if lim.output_bytes < 0 or lim.stderr_bytes < 0 or lim.file_size_bytes < 0:
            raise ValueError("byte limits must be >= 0")
        return lim

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def memory_bytes(self) -> int:
        return self.memory_mb << 20


def cpu_backstop_s(cpu_time_s: float) -> int:
    """RLIMIT_CPU's soft limit: far enough above the limit never to decide a verdict."""
    return max(math.ceil(cpu_time_s) + 1, math.ceil(cpu_time_s * 1.5))


def rlimits_for(lim: Limits, *, stack_mb: int | None, cgroup: bool = False) -> list[tuple[int, tuple[int, int]]]:
    """The (resource, (soft, hard)) pairs applied in the child just before exec."""
    cpu_soft = cpu_backstop_s(lim.cpu_time_s)
    mem = lim.memory_bytes
    # Unlimited needs our own hard limit to be unlimited (raising it needs a capability).
    stack = resource.getrlimit(resource.RLIMIT_STACK)[1] if stack_mb is None else min(mem, stack_mb << 20)
    memory = [] if cgroup else [(resource.RLIMIT_AS, (mem, mem))]
    return [
        (resource.RLIMIT_CPU, (cpu_soft, cpu_soft + 1)),
        *memory,
        (resource.RLIMIT_STACK, (stack, stack)),
        (resource.RLIMIT_NPROC, (lim.max_processes, lim.max_processes)),
        (resource.RLIMIT_FSIZE, (lim.file_size_bytes, lim.file_size_bytes)),
        (resource.RLIMIT_NOFILE, (lim.open_files, lim.open_files)),
        (resource.RLIMIT_CORE, (0, 0)),
        (resource.RLIMIT_MEMLOCK, (0, 0)),
        (resource.RLIMIT_MSGQUEUE, (0, 0)),
    ]
