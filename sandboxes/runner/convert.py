"""Between the typed contract (``sandboxes.types``) and the agent's plain-dict frames.

Host side only (uses pydantic). Every backend builds its requests and reads its replies
through these functions, so a RunResult means the same thing whichever backend made it.
Blob links are resolved here: bytes from the resolver (the store re-hashes them), or,
for a transport that passes file descriptors, a verified local file opened read-only.
"""

from __future__ import annotations

import base64
import hashlib
import os
import stat
import threading
from collections import OrderedDict

from sandboxes.types import (Artifact, Blob, CompileResult, RunLimits, RunResult, RunSpec,
                             Source, Status)

# Links are sha256 names; the prefix and the hex check are the store's contract.
LINK_PREFIX = "blob://sha256/"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def limits_dict(lim: RunLimits) -> dict:
    return lim.model_dump(mode="json")


def compile_request(src: Source) -> dict:
    return {"op": "compile", "language": src.language, "code": src.code,
            "limits": limits_dict(src.compile_limits)}


def compile_result(reply: dict) -> CompileResult:
    if "error" in reply:
        return CompileResult(status=Status.IE, log=f"sandbox error: {reply['error']}")
    art = reply.get("artifact")
    artifact = None
    if art is not None:
        artifact = Artifact(language=art["language"],
                            blob=Blob(data=base64.b64decode(art["data_b64"])))
    return CompileResult(status=Status(reply["status"]), log=reply.get("log", ""),
                         wall_time_s=reply.get("wall_time_s", 0.0), artifact=artifact,
                         pch=reply.get("pch"))


def run_result(run_id: str, reply: dict) -> RunResult:
    if "error" in reply:
        return ie_result(run_id, f"sandbox error: {reply['error']}")
    return RunResult(
        id=run_id, status=Status(reply["status"]), exit_code=reply.get("exit_code"),
        signal=reply.get("signal"), cpu_time_s=reply.get("cpu_time_s", 0.0),
        wall_time_s=reply.get("wall_time_s", 0.0), memory_kb=reply.get("memory_kb", 0),
        output_bytes=reply.get("output_bytes", 0),
        stdout=_output(reply, "stdout"), stderr=_output(reply, "stderr"),
        message=reply.get("message", ""))


def _output(reply: dict, name: str) -> bytes:
    """Raw bytes (an agent frame's tail, ``protocol.Channel``) or base64 (Lambda's JSON)."""
    data = reply.get(name)
    if isinstance(data, bytes):
        return data
    return base64.b64decode(reply.get(f"{name}_b64", ""))


def ie_result(run_id: str, message: str) -> RunResult:
    return RunResult(id=run_id, status=Status.IE, message=message)


class BlobResolver:
    """Turns ``Blob``s into bytes or agent data sources; verifies local files once.

    ``store`` is anything with ``get(link) -> bytes`` (a ``BlobStore``), optionally
    ``local_path(link)``. With ``pass_fds`` (the local backend's socket transport) a blob
    with a local path travels as an open, hash-verified fd: the sandboxed run receives the
    bytes on its stdin but never a path into the store.
    """

    # Small blobs read (and hash-checked) once are kept: a test input is read by every run
    # of every submission, and a link names its content, so the bytes cannot go stale.
    SMALL_BLOB_BYTES = 256 << 10
    SMALL_CACHE_BYTES = 64 << 20

    def __init__(self, store=None, *, pass_fds: bool = False):
        self.store = store
        self.pass_fds = pass_fds and store is not None and hasattr(store, "local_path")
        self._verified: set[tuple] = set()
        self._lock = threading.Lock()
        self._small: OrderedDict[str, bytes] = OrderedDict()
        self._small_bytes = 0
        self._paths: dict[str, str] = {}  # link -> where the store keeps it (see _path)

    def _need_store(self, link: str):
        if self.store is None:
            raise LookupError(f"blob {link} given by link but this backend has no blob resolver")
        return self.store

    def data(self, blob: Blob) -> bytes:
        if blob.data is not None:
            return blob.data
        with self._lock:
            kept = self._small.get(blob.link)
            if kept is not None:
                self._small.move_to_end(blob.link)
                return kept
        data = self._need_store(blob.link).get(blob.link)
        if len(data) <= self.SMALL_BLOB_BYTES:
            with self._lock:
                if blob.link not in self._small:
                    self._small[blob.link] = data
                    self._small_bytes += len(data)
                while self._small_bytes > self.SMALL_CACHE_BYTES:
                    self._small_bytes -= len(self._small.popitem(last=False)[1])
        return data

    def all_kept(self, links: list[str]) -> bool:
        """Whether ``data`` has every one of these blobs in memory (no read, no thread)."""
        with self._lock:
            return all(link in self._small for link in links)

    def source(self, blob: Blob, fds: list[int]) -> dict:
        """A data source for a request; may open a file and append its fd to ``fds``."""
        if blob.data is not None:
            return {"data_b64": b64(blob.data)}
        if self.pass_fds:
            fd = self._open_verified(blob.link)
            if fd is not None:
                fds.append(fd)
                return {"fd": len(fds) - 1}
        return {"data_b64": b64(self.data(blob))}

    _MAX_PATHS = 1 << 17

    def _path(self, link: str) -> str | None:
        """Where the store keeps ``link`` (None: not a local file), looked up once per link
        that has a file: a link names its content, so its place does not move. Whether the
        file is still there is not remembered: the stat/open that follows sees that. Each
        test used to ask twice through pathlib, with a stat each time: 12 % of the service's
        active time in the Python workload (py-spy)."""
        path = self._paths.get(link)
        if path is None:
            found = self._need_store(link).local_path(link)
            if found is None:
                return None
            if len(self._paths) >= self._MAX_PATHS:
                self._paths.clear()
            path = self._paths[link] = str(found)
        return path

    def all_verified(self, links: list[str]) -> bool:
        """Whether every link is a local store file already hash-checked here (as it is
        now: same inode, size and mtime), so that opening it reads nothing."""
        if not self.pass_fds:
            return False
        for link in links:
            try:
                path = self._path(link)
                st = os.stat(path, follow_symlinks=False) if path is not None else None
            except (OSError, ValueError, LookupError):
                return False
            if st is None or not stat.S_ISREG(st.st_mode):
                return False
            with self._lock:
                if (link, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns) not in self._verified:
                    return False
        return True

    def _open_verified(self, link: str) -> int | None:
        path = self._path(link)
        if path is None:
            return None
        if not link.startswith(LINK_PREFIX):
            raise ValueError(f"not a blob link: {link!r}")
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
        except FileNotFoundError:
            return None  # not (or no longer) in the store's files: the caller reads it by get()
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise ValueError(f"blob {link} is not a regular file at {path}")
            key = (link, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
            with self._lock:
                known = key in self._verified
            if not known:
                h = hashlib.sha256()
                while chunk := os.read(fd, 1 << 20):
                    h.update(chunk)
                if h.hexdigest() != link[len(LINK_PREFIX):]:
                    raise ValueError(f"corrupted blob {link} at {path}: content hashes to {h.hexdigest()}")
                os.lseek(fd, 0, os.SEEK_SET)
                with self._lock:
                    self._verified.add(key)
            return fd
        except BaseException:
            os.close(fd)
            raise


def program_ref(art: Artifact, data: bytes, *, with_data: bool, code_objects: CodeObjects | None = None) -> dict:
    ref = {"language": art.language, "sha256": hashlib.sha256(data).hexdigest()}
    if with_data:
        ref["data_b64"] = b64(data)
        code = code_objects.get(ref["sha256"]) if code_objects is not None else None
        if code is not None:
            ref["pycode_b64"] = code
    return ref


class CodeObjects:
    """A Python program's compiled code object, as the slot that compiled it returned it
    (``pycode_b64`` in the compile reply, keyed by the source's sha256). Sent along with
    the source to a slot that does not hold the program yet, so a submission is compiled
    once, not once per slot (PROTOCOL.md "Python fork server"). Bounded LRU (by bytes)."""

    def __init__(self, max_bytes: int = 16 << 20):
        self.max_bytes = max_bytes
        self._codes: OrderedDict[str, str] = OrderedDict()
        self._bytes = 0

    def note(self, reply: dict) -> None:
        """Keep the code object of a successful compile reply, if it carries one."""
        art, code = reply.get("artifact"), reply.get("pycode_b64")
        if not art or not isinstance(code, str) or len(code) > self.max_bytes:
            return
        sha = art["sha256"]
        old = self._codes.pop(sha, None)
        self._bytes += len(code) - (len(old) if old is not None else 0)
        self._codes[sha] = code
        while self._bytes > self.max_bytes:
            self._bytes -= len(self._codes.popitem(last=False)[1])

    def get(self, sha: str) -> str | None:
        code = self._codes.get(sha)
        if code is not None:
            self._codes.move_to_end(sha)
        return code


def linked_blobs(spec: RunSpec) -> list[str]:
    """The links of a run's inputs that are not inline (stdin, then files)."""
    return [b.link for b in ([spec.stdin] if spec.stdin is not None else []) + list(spec.files.values())
            if b.data is None]


def run_request(spec: RunSpec, program: dict, resolver: BlobResolver, fds: list[int]) -> dict:
    return {
        "op": "run", "program": program,
        "stdin": None if spec.stdin is None else resolver.source(spec.stdin, fds),
        "args": list(spec.args),
        "files": {name: resolver.source(b, fds) for name, b in spec.files.items()},
        "limits": limits_dict(spec.limits),
    }
