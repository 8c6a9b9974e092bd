"""Length-prefixed JSON frames over a pipe pair or a unix socket (stdlib only).

A frame is a 4-byte big-endian length then that many bytes of UTF-8 JSON (one object).
An object whose top-level values include ``bytes`` travels with those bytes raw after the
JSON (its ``"raw"`` key lists their names and lengths): a run's 64 MiB of output costs the
receiver a copy instead of a JSON scan and a base64 decode. On a unix socket, file
descriptors ride along as SCM_RIGHTS on the sendmsg that carries the header. See
PROTOCOL.md for the operations.
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

    @staticmethod
    def raw_length(obj: dict) -> int:
        """Bytes that follow a decoded frame's JSON (its ``"raw"`` list; 0 without one)."""
        raw = obj.get("raw")
        if raw is None:
            return 0
        if (not isinstance(raw, list) or len(raw) > 8
                or not all(isinstance(r, list) and len(r) == 2 and isinstance(r[0], str)
                           and r[0] != "raw" and type(r[1]) is int and r[1] >= 0 for r in raw)):
            raise ProtocolError("frame's 'raw' must list [name, length] pairs")
        total = sum(r[1] for r in raw)
        if total > MAX_FRAME:
            raise ProtocolError(f"raw bytes of {total} exceed {MAX_FRAME}")
        return total

    @staticmethod
    def attach_raw(obj: dict, data) -> dict:
        """Put the raw bytes read after ``obj``'s JSON back under their names (as bytes)."""
        view, at = memoryview(data), 0
        for name, n in obj.pop("raw", None) or []:
            obj[name] = bytes(view[at:at + n])
            at += n
        return obj

    @staticmethod
    def _split(obj: dict) -> tuple[dict, list[bytes]]:
        names = [k for k, v in obj.items() if isinstance(v, (bytes, bytearray))]
        if not names:
            return obj, []
        obj = dict(obj)
        tail = [obj.pop(k) for k in names]
        obj["raw"] = [[k, len(b)] for k, b in zip(names, tail)]
        if sum(map(len, tail)) > MAX_FRAME:
            raise ProtocolError(f"raw bytes exceed {MAX_FRAME}")
        return obj, tail

    def send(self, obj: dict, fds: list[int] | None = None) -> None:
        obj, tail = self._split(obj)
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
        for part in tail:
            self._write_all(part)

    def _write_all(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            if self.sock is not None:
                n = self.sock.send(view)
            else:
                n = os.write(self.wfd, view)
            view = view[n:]

    def _read_exact(self, n: int) -> bytearray:
        buf = bytearray(n)
        view, got = memoryview(buf), 0
        while got < n:
            k = (self.sock.recv_into(view[got:]) if self.sock is not None
                 else os.readv(self.rfd, [view[got:]]))
            if not k:
                raise ProtocolError("peer closed the connection" + (" mid-frame" if got else ""))
            got += k
        return buf

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
        obj = self.decode(self._read_exact(self.frame_length(hdr)))
        if "raw" in obj:
            n = self.raw_length(obj)
            self.attach_raw(obj, self._read_exact(n) if n else b"")
        return obj, fds

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        else:
            for fd in {self.rfd, self.wfd}:
                try:
                    os.close(fd)
                except OSError:
                    pass
