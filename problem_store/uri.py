"""Open a blob store from a URI: the one place store locations are parsed.

- ``file:///abs/path`` or a plain path (relative paths are taken from the cwd)
- ``s3://bucket/prefix[?endpoint=http://127.0.0.1:PORT&region=us-east-1&create=1]``
- nothing: ``$OUBLIETTE_STORE``, else ``file://$XDG_DATA_HOME/oubliette/store``
  (``~/.local/share/oubliette/store`` when XDG_DATA_HOME is unset)
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

from problem_store.blobs.base import BlobStore, StoreError


def default_store_uri() -> str:
    env = os.environ.get("OUBLIETTE_STORE")
    if env:
        return env
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return (Path(data_home) / "oubliette" / "store").absolute().as_uri()


def open_store(uri: str | None = None) -> BlobStore:
    """Return the blob store a URI names (see the module docstring); StoreError if malformed."""
    uri = uri or default_store_uri()
    parsed = urlparse(uri)
    if parsed.scheme == "s3":
        from problem_store.blobs.s3 import S3BlobStore

        if not parsed.netloc:
            raise StoreError(f"store URI {uri!r} names no bucket (expected s3://bucket/prefix)")
        query = {k: v[-1] for k, v in parse_qs(parsed.query).items()}
        unknown = set(query) - {"endpoint", "region", "create"}
        if unknown:
            raise StoreError(f"store URI {uri!r}: unknown query parameter(s) {sorted(unknown)}")
        return S3BlobStore(
            parsed.netloc,
            unquote(parsed.path).strip("/"),
            endpoint_url=query.get("endpoint"),
            region=query.get("region"),
            create_bucket=query.get("create", "0").lower() in ("1", "true", "yes"),
        )
    if parsed.scheme == "file":
        if parsed.netloc not in ("", "localhost"):
            raise StoreError(f"store URI {uri!r}: file URIs must be local (file:///abs/path)")
        from problem_store.blobs.file import FileBlobStore

        return FileBlobStore(Path(unquote(parsed.path)))
    if parsed.scheme and len(parsed.scheme) > 1:  # one letter: a Windows drive, not a scheme
        raise StoreError(f"store URI {uri!r}: unsupported scheme {parsed.scheme!r} (use file:// or s3://)")
    from problem_store.blobs.file import FileBlobStore

    return FileBlobStore(Path(uri).expanduser().absolute())
