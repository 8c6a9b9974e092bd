"""A run's stdout and stderr, read with caps (stdlib only).

stdout is kept up to ``output_cap``: one byte more and the run is over (OLE, the watcher
kills it). stderr is kept up to its own cap and the rest is read and dropped, so a chatty
program never blocks on a full pipe.
"""

from __future__ import annotations

import os

CHUNK = 1 << 16


class Capture:
    def __init__(self, output_cap: int, stderr_cap: int):
        self.output_cap, self.stderr_cap = output_cap, stderr_cap
        self.out: list[bytes] = []
        self.err: list[bytes] = []
        self.out_len = self.err_len = 0
        self.over = False

    def add(self, is_stdout: bool, chunk: bytes) -> None:
        if is_stdout:
            room = self.output_cap - self.out_len
            if len(chunk) > room:
                chunk, self.over = chunk[:room], True
            self.out.append(chunk)
            self.out_len += len(chunk)
        elif self.err_len < self.stderr_cap:
            self.err.append(chunk[: self.stderr_cap - self.err_len])
            self.err_len += len(self.err[-1])

    def drain(self, fd: int, is_stdout: bool) -> None:
        """Read what is already buffered (descendants outside the run may hold the pipe open)."""
        while not self.over:
            try:
                chunk = os.read(fd, CHUNK)
            except BlockingIOError:
                return
            if not chunk:
                return
            self.add(is_stdout, chunk)

    @property
    def stdout(self) -> bytes:
        return b"".join(self.out)

    @property
    def stderr(self) -> bytes:
        return b"".join(self.err)
