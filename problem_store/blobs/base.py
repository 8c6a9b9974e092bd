"""The blob store seam: one small synchronous interface, two backends (file, s3).

Content blobs are addressed by sha256 and named by links ``blob://sha256/<hex>``;
reading one re-hashes it, so a corrupted blob is an error that names it, never
silently wrong test data. Named objects (manifests, indexes, transient outputs)
live beside the blobs under plain keys and are written atomically.

Callers on an event loop wrap these calls in ``asyncio.to_thread``.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Iterator
from pathlib import Path

LINK_PREFIX = "blob://sha256/"


class StoreError(Exception):
    """Base class of every store failure."""


class BlobNotFound(StoreError, KeyError):
    def __init__(self, link: str):
        super().__init__(link)
        self.link = link

    def __str__(self) -> str:
        return f"blob not found: {self.link}"


class CorruptBlob(StoreError):
    """A blob whose bytes no longer hash to its name."""

    def __init__(self, link: str, actual: str, where: str = ""):
        super().__init__(link)
        self.link, self.actual, self.where = link, actual, where

    def __str__(self) -> str:
        at = f" at {self.where}" if self.where else ""
        return f"corrupted blob {self.link}{at}: content hashes to sha256 {self.actual}"


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def link_for(data: bytes) -> str:
    return LINK_PREFIX + digest_of(data)


def digest_of_link(link: str) -> str:
    if not link.startswith(LINK_PREFIX) or len(link) != len(LINK_PREFIX) + 64:
        raise ValueError(f"not a blob link: {link!r}")
    hexpart = link[len(LINK_PREFIX):]
    int(hexpart, 16)
    return hexpart


class BlobStore(ABC):
    """Content-addressed blobs plus atomically written named objects."""

    uri: str
    #: How many threads a bulk writer (the upload engine) should use against this store.
    io_concurrency: int = 1

    # -- content-addressed blobs -------------------------------------------------
    @abstractmethod
    def put(self, data: bytes) -> tuple[str, bool]:
        """Store bytes; return (link, newly_written). Idempotent; safe under concurrent writers."""

    @abstractmethod
    def get(self, link: str) -> bytes:
        """Return the blob's bytes after checking its hash (CorruptBlob / BlobNotFound)."""

    @abstractmethod
    def exists(self, link: str) -> bool: ...

    @abstractmethod
    def delete(self, link: str) -> None:
        """Remove a blob (no error if absent)."""

    @abstractmethod
    def iter_links(self) -> Iterator[str]:
        """Every stored blob's link."""

    @abstractmethod
    def size(self, link: str) -> int: ...

    def local_path(self, link: str) -> Path | None:
        """A path on this host holding the blob's bytes, if the backend has one (not re-hashed)."""
        return None

    def blob_mtime(self, link: str) -> float | None:
        """When the blob was last written (epoch seconds), or None if unknown/absent.

        Garbage collection spares unreferenced blobs younger than a grace period, because an
        upload writes its blobs before the manifest that references them.
        """
        return None

    def object_version(self, key: str) -> str | None:
        """A cheap token that changes whenever the named object changes (None: absent).

        Lets readers cache parsed objects and still see every update.
        """
        data = self.get_object(key)
        return None if data is None else digest_of(data)

    # -- named objects (manifests, indexes, transient outputs) --------------------
    @abstractmethod
    def put_object(self, key: str, data: bytes) -> None:
        """Write a named object atomically: readers see the old or the new bytes, never a mix."""

    @abstractmethod
    def get_object(self, key: str) -> bytes | None: ...

    @abstractmethod
    def delete_object(self, key: str) -> None: ...

    @abstractmethod
    def list_objects(self, prefix: str) -> Iterator[str]:
        """Keys under a prefix (e.g. 'problems/'), in no guaranteed order."""
