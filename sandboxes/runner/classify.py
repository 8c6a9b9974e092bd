"""Turn a process outcome into a verdict class: OK / TLE / MLE / OLE / RE (or IE).

Order matters: a limit the agent enforced by killing the process names the verdict
(output cap -> OLE, CPU -> TLE, wall -> TLE); then memory; then signals and exit codes.

With a cgroup (``Outcome.oom_killed``) the kernel kills inside the run's group when the
tree reaches the memory limit: that is MLE, whichever process it hit, even if the main
process then exits 0. Without one, memory is capped with RLIMIT_AS, so hitting it rarely
shows up as a kill: the program's allocation fails and it dies its own way. Like other
rlimit-based judges we read those signs (they apply in both modes): peak RSS at the cap, an allocator failure message on stderr (Python MemoryError,
C++ std::bad_alloc), or a SIGKILL nobody in the agent sent (the kernel kills a process
whose image cannot be mapped at exec, e.g. a 1 GiB static array).
"""

from __future__ import annotations

import signal as _signal

from sandboxes.runner.limits import Limits
from sandboxes.runner.process import Outcome

_OOM_MARKERS = (b"MemoryError", b"std::bad_alloc", b"Cannot allocate memory",
                b"out of memory", b"Out of memory")


def _signame(sig: int) -> str:
    try:
        return _signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"


def classify(out: Outcome, lim: Limits) -> tuple[str, str]:
    """Return (status, message)."""
    if out.setup_error and "execve" in out.setup_error and "Cannot allocate memory" in out.setup_error:
        # The program's image (e.g. a huge static array) does not fit the address-space cap.
        return "MLE", f"memory limit {lim.memory_mb} MB exceeded (program image does not fit)"
    if out.setup_error:
        return "IE", f"sandbox could not start the program: {out.setup_error}"
    if out.killed_for == "output":
        return "OLE", f"output exceeded {lim.output_bytes} bytes"
    if out.killed_for == "cpu" or out.signal == _signal.SIGXCPU or out.cpu_time_s > lim.cpu_time_s:
        return "TLE", f"CPU time limit {lim.cpu_time_s:g} s exceeded ({out.cpu_time_s:.3f} s)"
    if out.oom_killed:  # before wall: a tree that lost a process to the OOM killer may then hang
        return "MLE", f"memory limit {lim.memory_mb} MB exceeded (the run's processes together)"
    if out.killed_for == "wall":
        return "TLE", f"wall time limit {lim.wall_time_s:g} s exceeded"
    if out.killed_for == "idle":
        return "TLE", ("idleness limit: no progress, the program used almost no CPU time for a while "
                       "(sleeping, or waiting on a device or pipe that never answers, e.g. an "
                       "#include of /dev/ptmx)")
    if out.killed_for == "stopped":
        return "TLE", ("the program's main process was stopped (SIGSTOP/SIGTSTP) and could "
                       "never finish")
    failed = out.signal is not None or out.exit_code != 0
    mem_kb = lim.memory_mb * 1024
    if out.memory_kb > mem_kb:
        return "MLE", f"memory limit {lim.memory_mb} MB exceeded (peak {out.memory_kb} KB)"
    if failed:
        # A SIGKILL nobody in the agent sent means the kernel's memory cap only without a
        # cgroup: with one, an OOM kill shows as oom_killed (or the peak at the limit), and a
        # program that SIGKILLs itself is a runtime error, not MLE.
        if (out.memory_kb >= 0.9 * mem_kb or any(m in out.stderr for m in _OOM_MARKERS)
                or (out.signal == _signal.SIGKILL and not out.in_cgroup)):
            return "MLE", f"memory limit {lim.memory_mb} MB exceeded (allocation failed)"
        if out.signal == _signal.SIGXFSZ:
            return "RE", f"file size limit {lim.file_size_bytes} bytes exceeded (SIGXFSZ)"
        if out.signal is not None:
            return "RE", f"killed by {_signame(out.signal)}"
        return "RE", f"exit code {out.exit_code}"
    return "OK", ""
