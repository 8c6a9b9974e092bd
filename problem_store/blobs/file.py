"""Blob store in a local directory.

Layout::

    <root>/blobs/ab/cd/<64 hex>     content blobs, fanned out by the first two bytes
    <root>/objects/<key>            named objects (manifests, transient outputs)

Every write goes to a temporary file in the destination directory, is fsync'ed, and
then appears atomically: blobs by ``os.link`` (fails if the blob already exists, so
exactly one of several concurrent writers reports ``newly_written``), named objects by
``os.replace`` (last writer wins, readers see whole old or whole new bytes). Readers
never see a partly written file, whatever the number of writing processes.

``put`` of a blob that is already there re-hashes the stored copy and, if it is damaged
(or of the wrong size), replaces it atomically: re-uploading a problem repairs it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from problem_store.blobs.base import (
    LINK_PREFIX,
    BlobNotFound,
    BlobStore,
    CorruptBlob,
    StoreError,
    digest_of,
    digest_of_link,
)

TMP_PREFIX = ".tmp-"


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _check_key(key: str) -> None:
    parts = key.split("/")
    if not key or key.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise StoreError(f"invalid object key {key!r}: expected relative parts without '.', '..' or '//'")
    if any(p.startswith(TMP_PREFIX) for p in parts):
        raise StoreError(f"invalid object key {key!r}: parts may not start with {TMP_PREFIX!r}")


class FileBlobStore(BlobStore):
    """Content-addressed blobs and named objects under one directory."""

    io_concurrency = 4

    def __init__(self, root: Path | str, *, fsync: bool = True):
        self.root = Path(root).absolute()
        self.fsync = fsync
        self.uri = self.root.as_uri()
        self._blobs = self.root / "blobs"
        self._objects = self.root / "objects"

    def __repr__(self) -> str:
        return f"FileBlobStore({str(self.root)!r})"

    # -- helpers -----------------------------------------------------------------
    def _blob_path(self, link: str) -> Path:
        hexd = digest_of_link(link)
        return self._blobs / hexd[:2] / hexd[2:4] / hexd

    def _write_temp(self, directory: Path, data: bytes) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=TMP_PREFIX, dir=directory)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                if self.fsync:
                    f.flush()
                    os.fsync(f.fileno())
        except BaseException:
            Path(name).unlink(missing_ok=True)
            raise
        return Path(name)

    # -- blobs -------------------------------------------------------------------
    def put(self, data: bytes) -> tuple[str, bool]:
        hexd = digest_of(data)
        link = LINK_PREFIX + hexd
        path = self._blob_path(link)
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            size = None
        if size is not None:
            # Re-hash what is there: a damaged copy of the same size would otherwise stay
            # damaged forever, since content addressing says "already stored".
            if size == len(data) and self._holds(path, hexd):
                return link, False
            self._replace(path, data)  # repair: the damaged copy gives way atomically
            return link, True
        tmp = self._write_temp(path.parent, data)
        try:
            os.link(tmp, path)  # atomic, and fails if another writer got there first
            newly = True
        except FileExistsError:
            newly = False
        finally:
            tmp.unlink(missing_ok=True)
        if newly and self.fsync:
            _fsync_dir(path.parent)
        return link, newly

    @staticmethod
    def _holds(path: Path, hexd: str) -> bool:
        try:
            return digest_of(path.read_bytes()) == hexd
        except FileNotFoundError:
            return False

    def _replace(self, path: Path, data: bytes) -> None:
        tmp = self._write_temp(path.parent, data)
        try:
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        if self.fsync:
            _fsync_dir(path.parent)

    def get(self, link: str) -> bytes:
        path = self._blob_path(link)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise BlobNotFound(link) from None
        actual = digest_of(data)
        if actual != digest_of_link(link):
            raise CorruptBlob(link, actual, where=str(path))
        return data

    def exists(self, link: str) -> bool:
        return self._blob_path(link).is_file()

    def delete(self, link: str) -> None:
        self._blob_path(link).unlink(missing_ok=True)

    def iter_links(self) -> Iterator[str]:
        if not self._blobs.is_dir():
            return
        for a in sorted(os.listdir(self._blobs)):
            da = self._blobs / a
            if len(a) != 2 or not da.is_dir():
                continue
            for b in sorted(os.listdir(da)):
                db = da / b
                if len(b) != 2 or not db.is_dir():
                    continue
                for name in sorted(os.listdir(db)):
                    if len(name) == 64 and not name.startswith(TMP_PREFIX):
                        yield LINK_PREFIX + name

    def size(self, link: str) -> int:
        try:
            return self._blob_path(link).stat().st_size
        except FileNotFoundError:
            raise BlobNotFound(link) from None

    def local_path(self, link: str) -> Path | None:
        path = self._blob_path(link)
        return path if path.is_file() else None

    def blob_mtime(self, link: str) -> float | None:
        try:
            return self._blob_path(link).stat().st_mtime
        except FileNotFoundError:
            return None

    def iter_temp_files(self) -> Iterator[Path]:
        """Leftovers of writers that died mid-write (for gc)."""
        for base in (self._blobs, self._objects):
            if base.is_dir():
                for dirpath, _dirs, files in os.walk(base):
                    for name in files:
                        if name.startswith(TMP_PREFIX):
                            yield Path(dirpath) / name

    # -- named objects -------------------------------------------------------------
    def _object_path(self, key: str) -> Path:
        _check_key(key)
        return self._objects / key

    def put_object(self, key: str, data: bytes) -> None:
        self._replace(self._object_path(key), data)

    def get_object(self, key: str) -> bytes | None:
        try:
            return self._object_path(key).read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    def delete_object(self, key: str) -> None:
        path = self._object_path(key)
        try:
            path.unlink()
        except (FileNotFoundError, IsADirectoryError):
            return
        if self.fsync:
            _fsync_dir(path.parent)

    def list_objects(self, prefix: str) -> Iterator[str]:
        # Walk only the directory the prefix names (or its parent, for a partial last part).
        head, _, _tail = prefix.rpartition("/")
        base = self._objects / head if head else self._objects
        if not base.is_dir():
            return
        for dirpath, _dirs, files in os.walk(base):
            rel = Path(dirpath).relative_to(self._objects).as_posix()
            for name in files:
                if name.startswith(TMP_PREFIX):
                    continue
                key = name if rel == "." else f"{rel}/{name}"
                if key.startswith(prefix):
                    yield key

    def object_version(self, key: str) -> str | None:
        try:
            st = self._object_path(key).stat()
        except (FileNotFoundError, NotADirectoryError):
            return None
        # os.replace gives every new version a new inode, so this changes on every write.
        return f"{st.st_ino}:{st.st_mtime_ns}:{st.st_size}"
