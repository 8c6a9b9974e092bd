"""File-count caps on a sandbox's tmpfs mounts, set from the host.

A tmpfs mount's ``size`` caps bytes, not files: empty files cost only inodes, and a run that
left millions of them made the reset after it (and so the next run on that sandbox) take
seconds (code review 4: 9.9 s). bwrap and Docker's ``shm_size`` set a size only, so the host
remounts those mounts with ``nr_inodes`` inside the sandbox's mount namespace (``nsenter``;
the service is root on the sandbox's host), once, before the sandbox serves.
"""

from __future__ import annotations

import subprocess


class TmpfsCapError(RuntimeError):
    """A cap could not be set: the caller does not use the sandbox."""


def cap_files(pid: int, mounts: list[tuple[str, int, int]]) -> None:
    """Remount each ``(path, size_bytes, inodes)`` as seen by process ``pid``'s mount namespace."""
    for path, size, inodes in mounts:
        try:
            done = subprocess.run(
                ["nsenter", "-t", str(pid), "-m", "mount", "-o",
                 f"remount,size={size},nr_inodes={inodes}", path],
                capture_output=True, text=True, timeout=10, env={"PATH": "/usr/bin:/bin"})
        except (OSError, subprocess.SubprocessError) as exc:
            raise TmpfsCapError(f"cannot cap the files of {path}: {exc}") from None
        if done.returncode != 0:
            raise TmpfsCapError(f"cannot cap the files of {path}: "
                                f"{(done.stderr or done.stdout).strip()[:300]}")
