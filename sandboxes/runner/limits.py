"""Run limits as plain data, and the rlimits a run's process gets (stdlib only).

Mirrors ``sandboxes.types.RunLimits`` (same names, same defaults) so the agent can run
without pydantic. Which limit is enforced how:

- CPU time: RLIMIT_CPU (whole seconds, rounded up; SIGXCPU then SIGKILL one second
  later) plus the agent polling the process's CPU clock and killing it at the limit.
- wall time: the agent kills the process group at the deadline.
- memory: RLIMIT_AS (address space). Peak RSS comes from wait4's rusage.
- output: counted while reading the stdout pipe; the group is killed at the cap.
- processes/threads: RLIMIT_NPROC (per uid, so concurrent runs need distinct uids).
- file size: RLIMIT_FSIZE (SIGXFSZ); scratch dir size: the backend's tmpfs size.
- open files: RLIMIT_NOFILE. Core dumps: RLIMIT_CORE 0.
"""

from __future__ import annotations

import math
import resource
from dataclasses import asdict, dataclass, fields


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


def rlimits_for(lim: Limits, *, stack_mb: int | None) -> list[tuple[int, tuple[int, int]]]:
    """The (resource, (soft, hard)) pairs applied in the child just before exec."""
    cpu_soft = max(1, math.ceil(lim.cpu_time_s))
    mem = lim.memory_bytes
    # stack_mb None = the memory limit: deep recursion is legal in judged code and the
    # address-space cap still bounds the total (see sandboxes.languages).
    stack = mem if stack_mb is None else min(mem, stack_mb << 20)
    return [
        (resource.RLIMIT_CPU, (cpu_soft, cpu_soft + 1)),
        (resource.RLIMIT_AS, (mem, mem)),
        (resource.RLIMIT_STACK, (stack, stack)),
        (resource.RLIMIT_NPROC, (lim.max_processes, lim.max_processes)),
        (resource.RLIMIT_FSIZE, (lim.file_size_bytes, lim.file_size_bytes)),
        (resource.RLIMIT_NOFILE, (lim.open_files, lim.open_files)),
        (resource.RLIMIT_CORE, (0, 0)),
        (resource.RLIMIT_MEMLOCK, (0, 0)),
        (resource.RLIMIT_MSGQUEUE, (0, 0)),
    ]
