"""What every importer produces: drafts of problems (manifest fields + blob bytes).

An importer only reads files; it writes nothing. It yields, per problem, either a
``Draft`` (manifest fields whose links already name the bytes it holds) or an
``ImportFailure`` naming the file and line at fault. The upload engine compiles the
checker, validates the manifest and only then writes (see ``problem_store.upload``).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from problem_store.blobs.base import link_for

_ID_BAD = re.compile(r"[^A-Za-z0-9._-]+")


class ImportFailure(Exception):
    """Bad input: carries the file and line at fault; str() is ``file:line: message``."""

    def __init__(self, message: str, path: Path | str | None = None, line: int | None = None,
                 problem_id: str | None = None):
        super().__init__(message)
        self.message, self.path, self.line, self.problem_id = message, path, line, problem_id

    @property
    def where(self) -> str:
        if self.path is None:
            return ""
        return f"{self.path}:{self.line}" if self.line else str(self.path)

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


@dataclass
class CheckerSpec:
    """A custom checker's source, compiled by the upload engine before anything is written."""

    source: bytes
    path: Path  # for error messages
    language: str = "cpp"
    headers: dict[str, bytes] = field(default_factory=dict)


@dataclass
class Draft:
    """One imported problem, not yet validated or stored."""

    fields: dict
    origin: Path  # file (JSONL, problem.yaml, problem.xml) the problem came from
    line: int | None = None  # JSONL line of the record
    blobs: dict[str, bytes] = field(default_factory=dict)
    checker: CheckerSpec | None = None
    line_map: dict[tuple, int] = field(default_factory=dict)  # manifest field path -> line in origin
    duplicate_bytes: int = 0  # bytes of blobs this problem holds more than once (stored once)

    def add_blob(self, data: bytes) -> str:
        link = link_for(data)
        if link in self.blobs:
            self.duplicate_bytes += len(data)
        self.blobs[link] = data
        return link

    @property
    def problem_id(self) -> str:
        return str(self.fields.get("id", ""))

    def fail(self, message: str, loc: tuple = ()) -> ImportFailure:
        return ImportFailure(message, self.origin, self.line_for(loc), self.problem_id or None)

    def line_for(self, loc: tuple) -> int | None:
        """The line of the longest prefix of ``loc`` the origin file gives a line for."""
        for n in range(len(loc), 0, -1):
            if loc[:n] in self.line_map:
                return self.line_map[loc[:n]]
        return self.line


DraftOrFailure = Draft | ImportFailure
Importer = Iterator[DraftOrFailure]


def sanitize_id(raw: object, fallback: str) -> str:
    """A problem id from free text ("1548_E. Gregor", "HumanEval/0"): [A-Za-z0-9._-], <=128."""
    text = _ID_BAD.sub("-", str(raw)).strip("-._")
    text = re.sub(r"[-._]*-[-._]*", "-", text)[:128].rstrip("-._")
    return text or _ID_BAD.sub("-", fallback).strip("-._")[:128]


def natural_key(name: str) -> list:
    """Sort key putting '2' before '10'."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


def read_inside(base: Path, path: Path, what: str, *, origin: Path | None = None, line: int | None = None,
                max_bytes: int | None = None) -> bytes:
    """The bytes of a file that must lie inside the problem directory ``base``.

    The rule (docs/problem-format.md): a symlink is followed only while it stays inside
    the problem directory; a file that resolves anywhere else (``tests/02.in ->
    /etc/passwd``, a ``tests/`` directory linked elsewhere, ``../`` in a pattern) is
    refused, naming the file. Only regular files are read: a FIFO or device would block
    or never end. The resolved path is opened with O_NOFOLLOW, so a symlink swapped in
    after the check fails instead of being followed.
    """
    where = origin or path
    resolved = path.resolve()
    root = base.resolve()
    if not resolved.is_relative_to(root):
        raise ImportFailure(f"{what} {path} resolves to {resolved}, outside the problem directory {root}: "
                            "refused (symlinks may point only inside it)", where, line)
    try:
        fd = os.open(resolved, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise ImportFailure(f"{what} not found: {path}", where, line) from None
    except IsADirectoryError:
        raise ImportFailure(f"{what} is a directory, expected a file: {path}", where, line) from None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise ImportFailure(f"{what} {path} changed into a symlink while being read: refused", where, line) from None
        raise ImportFailure(f"{what} {path}: cannot read: {e.strerror}", where, line) from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ImportFailure(f"{what} {path} is not a regular file", where, line)
        data = f.read() if max_bytes is None else f.read(max_bytes + 1)
    if max_bytes is not None and len(data) > max_bytes:
        raise ImportFailure(f"{what} {path} is over the limit of {max_bytes} bytes", where, line)
    return data


def read_text_inside(base: Path, path: Path, what: str, **kw) -> str:
    data = read_inside(base, path, what, **kw)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ImportFailure(f"{what} {path} is not UTF-8 text ({e.reason} at byte {e.start})",
                            kw.get("origin") or path, kw.get("line")) from None


def inside(base: Path, rel: str, *, origin: Path, line: int | None, what: str) -> Path:
    """``base/rel``, refusing names that leave the problem directory by themselves
    (absolute, or too many ``..``). Symlinks are judged when the file is read
    (``read_inside``), so the error can name the link."""
    norm = os.path.normpath(rel)
    if os.path.isabs(norm) or norm == ".." or norm.startswith("../"):
        raise ImportFailure(f"{what} {rel!r} points outside the problem directory", origin, line)
    return base / norm
