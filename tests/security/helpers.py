"""Shared checks for the security suite: the host and the backend stay healthy."""

from __future__ import annotations

import os

from sandboxes.types import Status

HEALTH_CODE = "a, b = map(int, input().split())\nprint(a + b)\n"


def assert_healthy(backend) -> None:
    """After an attack, a normal submission still gets OK with the right output."""
    r = backend.run_code("python", HEALTH_CODE, b"19 23\n")
    assert r.status == Status.OK and r.stdout == b"42\n", f"backend unhealthy after the attack: {r}"


def host_pids_with_cmdline(marker: bytes) -> list[int]:
    """Host processes whose command line contains ``marker`` (we are root: we see all)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                if marker in f.read():
                    found.append(int(name))
        except OSError:
            pass
    return found


def host_pids_of_uids(uids) -> list[int]:
    uids = set(uids)
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/status") as f:
                    for line in f:
                        if line.startswith("Uid:"):
                            real = int(line.split()[1])
                            if real in uids:
                                with open(f"/proc/{name}/stat", "rb") as g:
                                    if g.read().rsplit(b")", 1)[1].split()[0] != b"Z":
                                        found.append(int(name))
                            break
            except (OSError, ValueError, IndexError):
                pass
    return found


def assert_no_run_processes_left(backend) -> None:
    """Backends that name their run uids (``run_uids``): none of them has a live process."""
    uids = getattr(backend.backend, "run_uids", None)
    if uids:
        left = host_pids_of_uids(uids)
        assert not left, f"processes of run uids {uids} survived the run: {left}"


def skip_if_not_covered(backend, claim: str) -> None:
    """Skip a claim the backend's threat model names as the deployment's job, citing why.

    Only backends that declare ``not_covered`` (lambda: no namespaces inside a function) can
    skip, and only the claims they name; every other backend must pass every claim.
    """
    import pytest

    reason = getattr(backend.backend, "not_covered", {}).get(claim)
    if reason:
        pytest.skip(f"{backend.name}: not covered by the sandbox itself: {reason}")
