"""Length-prefixed JSON frames over a pipe pair or a unix socket (stdlib only).

A frame is a 4-byte big-endian length then that many bytes of UTF-8 JSON (one object).
On a unix socket, file descriptors ride along as SCM_RIGHTS on the sendmsg that carries
the header. See PROTOCOL.md for the operations.
"""

from __future__ import annotations

import json
import os
import socket
import struct

MAX_FRAME = 1 << 30
_HDR = struct.Struct(">I")
MAX_FDS = 64


class ProtocolError(Exception):
    """The peer sent something that is not a frame, or went away mid-frame."""


class Channel:
    """One end of an agent connection: ``send(obj, fds)`` / ``recv() -> (obj, fds)``."""

    def __init__(self, rfd: int, wfd: int | None = None, *, sock: socket.socket | None = None):
        self.sock = sock
        self.rfd = rfd
        self.wfd = rfd if wfd is None else wfd

    @classmethod
    def from_socket(cls, sock: socket.socket) -> "Channel":
        return cls(sock.fileno(), sock=sock)

    @staticmethod
    def encode(obj: dict) -> bytes:
        """A whole frame (header + body), for callers that write it themselves (asyncio)."""
        body = json.dumps(obj, separators=(",", ":")).encode()
        if len(body) > MAX_FRAME:
            raise ProtocolError(f"frame of {len(body)} bytes exceeds {MAX_FRAME}")
        return _HDR.pack(len(body)) + body

    @staticmethod
    def frame_length(hdr: bytes) -> int:
        (n,) = _HDR.unpack(hdr)
        if n > MAX_FRAME:
            raise ProtocolError(f"frame length {n} exceeds {MAX_FRAME}")
        return n

    @staticmethod
    def decode(body: bytes) -> dict:
        try:
            obj = json.loads(body)
        except ValueError as exc:
            raise ProtocolError(f"frame is not JSON: {exc}") from None
        if not isinstance(obj, dict):
            raise ProtocolError("frame must hold a JSON object")
        return obj

    def send(self, obj: dict, fds: list[int] | None = None) -> None:
        body = json.dumps(obj, separators=(",", ":")).encode()
        if len(body) > MAX_FRAME:
            raise ProtocolError(f"frame of {len(body)} bytes exceeds {MAX_FRAME}")
        hdr = _HDR.pack(len(body))
        if fds:
            if self.sock is None:
                raise ProtocolError("file descriptors need the unix socket transport")
            socket.send_fds(self.sock, [hdr], fds)
            self._write_all(body)
        else:
            self._write_all(hdr + body)

    def _write_all(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            if self.sock is not None:
                n = self.sock.send(view)
            else:
                n = os.write(self.wfd, view)
            view = view[n:]

    def _read_exact(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf)) if self.sock is not None else os.read(self.rfd, n - len(buf))
            if not chunk:
                raise ProtocolError("peer closed the connection" + (" mid-frame" if buf else ""))
            buf += chunk
        return bytes(buf)

    def recv(self) -> tuple[dict, list[int]]:
        fds: list[int] = []
        if self.sock is not None:
            hdr, fds, _flags, _addr = socket.recv_fds(self.sock, _HDR.size, MAX_FDS, socket.MSG_CMSG_CLOEXEC)
            if not hdr:
                raise ProtocolError("peer closed the connection")
            if len(hdr) < _HDR.size:
                hdr += self._read_exact(_HDR.size - len(hdr))
        else:
            hdr = self._read_exact(_HDR.size)
        return self.decode(self._read_exact(self.frame_length(hdr))), fds

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        else:
            for fd in {self.rfd, self.wfd}:
                try:
                    os.close(fd)
                except OSError:
                    pass
