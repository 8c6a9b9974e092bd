"""Run one trusted program bare (no sandbox) with rlimits, for samples.validate.

Only team code (references) and the team's own known-wrong submissions run here, on
the developer's machine: this is a self-check of the sample data, not a judge.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

PYTHON = "/usr/bin/python3"


@dataclass
class RunResult:
    stdout: bytes
    stderr: bytes
    returncode: int  # negative: killed by that signal
    cpu_s: float
    wall_s: float
    timed_out: bool


def run(cmd: list[str], stdin_path: Path | None, wall_timeout_s: float,
        memory_mb: int | None = None, cpu_limit_s: float | None = None,
        cwd: Path | None = None) -> RunResult:
    """Run ``cmd`` with stdin from a file; CPU time from wait4's rusage (not wall clock)."""

    def limits() -> None:
        if memory_mb is not None:
            nbytes = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (nbytes, nbytes))
        if cpu_limit_s is not None:
            sec = int(cpu_limit_s) + 1
            resource.setrlimit(resource.RLIMIT_CPU, (sec, sec + 1))
        resource.setrlimit(resource.RLIMIT_STACK, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
        try:
            t0 = time.perf_counter()
            proc = subprocess.Popen(cmd, stdin=stdin, stdout=out, stderr=err, cwd=cwd,
                                    preexec_fn=limits, start_new_session=True)
            fired = threading.Event()

            def kill() -> None:
                fired.set()
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

            timer = threading.Timer(wall_timeout_s, kill)
            timer.start()
            _, status, ru = os.wait4(proc.pid, 0)
            timer.cancel()
            wall = time.perf_counter() - t0
            proc.returncode = os.waitstatus_to_exitcode(status)
        finally:
            if stdin is not subprocess.DEVNULL:
                stdin.close()
        out.seek(0)
        err.seek(0)
        return RunResult(out.read(), err.read(), proc.returncode, ru.ru_utime + ru.ru_stime, wall,
                         fired.is_set())


def compile_cpp(source: Path, binary: Path, include_dirs: tuple[Path, ...] = ()) -> tuple[bool, str]:
    """g++ -O2 -std=gnu++17, as the judge compiles C++ submissions."""
    flags = [f"-I{d}" for d in include_dirs]
    proc = subprocess.run(["g++", "-O2", "-std=gnu++17", *flags, "-o", str(binary), str(source)],
                          capture_output=True, text=True, timeout=120)
    return proc.returncode == 0, proc.stderr[-2000:]
