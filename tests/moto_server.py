"""A real moto server over HTTP on 127.0.0.1, for S3 (and Lambda) tests.

``start_moto_server(env)`` runs ``moto_server -H 127.0.0.1 -p <free port>`` as a child
process (its own process group, so ``stop`` ends it and anything it started), polls
until it answers, and returns ``(endpoint, stop)``. ``env`` adds variables to the
server's environment (the Lambda tests pass MOTO_DOCKER_* settings).
``reset_moto(endpoint)`` wipes every bucket/function via ``POST /moto-api/reset``.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def moto_server_binary() -> str:
    for cand in (Path(sys.executable).parent / "moto_server", REPO / ".venv" / "bin" / "moto_server"):
        if cand.is_file():
            return str(cand)
    found = shutil.which("moto_server")
    if not found:
        raise RuntimeError("moto_server not found: install the dev extra (moto[server])")
    return found


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ready(endpoint: str) -> bool:
    try:
        with urllib.request.urlopen(f"{endpoint}/moto-api/data.json", timeout=2) as r:
            return r.status == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


def reset_moto(endpoint: str) -> None:
    req = urllib.request.Request(f"{endpoint}/moto-api/reset", method="POST", data=b"")
    with urllib.request.urlopen(req, timeout=10) as r:
        if r.status != 200:
            raise RuntimeError(f"moto reset answered HTTP {r.status}")


def start_moto_server(env: dict | None = None, timeout_s: float = 60.0) -> tuple[str, Callable[[], None]]:
    """Start moto on a free loopback port; return (endpoint URL, stop function)."""
    full_env = {**os.environ, **(env or {})}
    log = tempfile.NamedTemporaryFile(prefix="moto-server-", suffix=".log", delete=False)
    last_error = ""
    for _attempt in range(3):  # the free port may be taken between probe and bind
        port = _free_port()
        endpoint = f"http://127.0.0.1:{port}"
        proc = subprocess.Popen(
            [moto_server_binary(), "-H", "127.0.0.1", "-p", str(port)],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env=full_env, start_new_session=True,
        )

        def stop(proc: subprocess.Popen = proc) -> None:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(timeout=10)

        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and proc.poll() is None:
            if _ready(endpoint):
                return endpoint, stop
            time.sleep(0.1)
        stop()
        last_error = Path(log.name).read_text(errors="replace")[-2000:]
    raise RuntimeError(f"moto_server did not start; log {log.name}:\n{last_error}")
