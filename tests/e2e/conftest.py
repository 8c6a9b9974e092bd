"""E2E fixtures: sample problems built and uploaded once per session; real server processes.

Fast runs build only a few small problems; ``-m full`` tests get the whole set. Backends:
those SANDBOX_BACKENDS names among local and docker (default both; lambda is covered by the
sandbox suites, at about a second an invoke under moto).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.server import REPO, ServerProcess

FAST_STDIO = ["sum-two", "is-even", "fizzbuzz", "two-sum-any"]  # two-sum-any: custom checker


def backends() -> list[str]:
    wanted = [b.strip() for b in os.environ.get("SANDBOX_BACKENDS", "local,docker").split(",") if b.strip()]
    return [b for b in ("local", "docker") if b in wanted] or ["local"]


def _run(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")


def build_store(root: Path, only_stdio: list[str] | None) -> str:
    """Build samples into root/samples, upload every kind into root/store; return the URI."""
    samples = root / "samples"
    cmd = [sys.executable, "-m", "samples.build", "--out", str(samples)]
    if only_stdio:
        cmd += ["--only", *only_stdio]
    _run(cmd)
    store = root / "store"
    for kind in ("stdio", "function", "math"):
        src = samples / kind
        if not src.is_dir():
            continue
        if kind == "stdio" and only_stdio:
            for pid in only_stdio:
                _run([sys.executable, "-m", "problem_store.cli", "--store", str(store), "upload",
                      "--no-progress", str(src / pid)])
            continue
        _run([sys.executable, "-m", "problem_store.cli", "--store", str(store), "upload",
              "--no-progress", str(src)])
    return str(store)


@pytest.fixture(scope="session")
def fast_store(tmp_path_factory) -> str:
    return build_store(tmp_path_factory.mktemp("fast"), FAST_STDIO)


@pytest.fixture(scope="session")
def full_store(tmp_path_factory) -> str:
    return build_store(tmp_path_factory.mktemp("full"), None)


@pytest.fixture(scope="session")
def fast_server(fast_store):
    with ServerProcess(fast_store, "local") as srv:
        yield srv


@pytest.fixture(scope="module", params=backends())
def golden_server(request, fast_store):
    """The fast golden subset runs on every backend named (local, docker)."""
    if request.param == "local":
        yield request.getfixturevalue("fast_server")
        return
    with ServerProcess(fast_store, request.param) as srv:
        yield srv
