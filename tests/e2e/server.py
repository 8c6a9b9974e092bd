"""Spawn a real ``verifier serve`` process on a free 127.0.0.1 port and stop it cleanly.

Used by the golden suite, the fuzz test and the load tests: they talk to the service over
real HTTP exactly as a user would. The process runs in its own process group so ``stop``
ends it (and its sandbox slots) without touching anything else.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


class ServerProcess:
    def __init__(self, store_uri: str, backend: str = "local", extra_args: list[str] | None = None,
                 env: dict[str, str] | None = None, repo: Path | None = None):
        """``repo``: the checkout whose code serves (default: this one; benchmarks compare two)."""
        self.store_uri, self.backend = store_uri, backend
        self.repo = Path(repo) if repo else REPO
        self.extra_args = extra_args or []
        self.env = env or {}
        self.proc: subprocess.Popen | None = None
        self.url = ""
        self.log_path = ""

    def start(self, timeout_s: float = 120.0) -> "ServerProcess":
        tmp = tempfile.mkdtemp(prefix="verifier-e2e-")
        port_file = os.path.join(tmp, "port")
        self.log_path = os.path.join(tmp, "server.log")
        env = dict(os.environ, PYTHONPATH=str(self.repo), **self.env)
        cmd = [sys.executable, "-m", "verifier.cli", "serve", "--host", "127.0.0.1", "--port", "0",
               "--store", self.store_uri, "--backend", self.backend, "--port-file", port_file,
               *self.extra_args]
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(cmd, cwd=self.repo, env=env, stdout=self._log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"verifier serve exited {self.proc.returncode}:\n{self.log_tail()}")
            if os.path.exists(port_file) and open(port_file).read().strip():
                self.url = f"http://127.0.0.1:{int(open(port_file).read())}"
                if self._ready():
                    return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"verifier serve not ready in {timeout_s}s:\n{self.log_tail()}")

    def _ready(self) -> bool:
        try:
            with urllib.request.urlopen(self.url + "/readyz", timeout=5) as r:
                return r.status == 200
        except OSError:
            return False

    def log_tail(self, n: int = 4000) -> str:
        try:
            return Path(self.log_path).read_text(errors="replace")[-n:]
        except OSError:
            return ""

    def log_lines(self) -> list[dict]:
        out = []
        for line in Path(self.log_path).read_text(errors="replace").splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
        return out

    def terminate(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)

    def stop(self, timeout_s: float = 60.0) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.terminate()
            try:
                self.proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self._log.close()
        return self.proc.returncode

    def __enter__(self) -> "ServerProcess":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
