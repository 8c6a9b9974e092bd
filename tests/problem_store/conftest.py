"""Fixtures for the problem store tests: the same suite runs on `file` and on `s3` (moto)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from problem_store.blobs.base import BlobStore
from problem_store.blobs.file import FileBlobStore
from problem_store.blobs.s3 import S3BlobStore
from problem_store.problems import ProblemStore


@pytest.fixture(scope="session")
def s3_bucket(moto_endpoint):
    name = "oubliette-test"
    S3BlobStore(name, "", endpoint_url=moto_endpoint, create_bucket=True)
    return name


@pytest.fixture(params=["file", "s3"])
def blob_store(request, tmp_path) -> BlobStore:
    """An empty blob store of each backend (s3: a fresh prefix in a moto bucket)."""
    if request.param == "file":
        return FileBlobStore(tmp_path / "store")
    endpoint = request.getfixturevalue("moto_endpoint")
    bucket = request.getfixturevalue("s3_bucket")
    return S3BlobStore(bucket, f"t-{uuid.uuid4().hex[:12]}", endpoint_url=endpoint)


@pytest.fixture
def store_uri(blob_store) -> str:
    """A URI `open_store` / `pstore --store` accept for the same store."""
    if isinstance(blob_store, S3BlobStore):
        return f"{blob_store.uri}?endpoint={blob_store.endpoint_url}"
    return blob_store.uri


@pytest.fixture
def problems(blob_store) -> ProblemStore:
    return ProblemStore(blob_store)


FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "problem_formats"


@pytest.fixture(scope="session", autouse=True)
def _checker_cache(tmp_path_factory):
    """Compiled checkers cached per test session, not in the user's cache."""
    import os

    old = os.environ.get("OUBLIETTE_CHECKER_CACHE")
    os.environ["OUBLIETTE_CHECKER_CACHE"] = str(tmp_path_factory.mktemp("checker-cache"))
    yield
    if old is None:
        os.environ.pop("OUBLIETTE_CHECKER_CACHE", None)
    else:
        os.environ["OUBLIETTE_CHECKER_CACHE"] = old
