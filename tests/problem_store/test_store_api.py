"""The problem store's public surface, which the verifier and the Lambda handler import."""

from __future__ import annotations

import inspect

import problem_store
from problem_store.blobs.base import BlobStore


def test_exported_members():
    assert sorted(problem_store.__all__) == [
        "BlobNotFound", "BlobStore", "CorruptBlob", "ProblemNotFound", "ProblemStore", "ProblemSummary",
        "StoreError", "TransientNotFound", "TransientStore", "default_store_uri", "link_for", "open_store"]
    for name in problem_store.__all__:
        assert hasattr(problem_store, name)


def test_signatures_other_parts_rely_on():
    assert list(inspect.signature(problem_store.open_store).parameters) == ["uri"]
    assert list(inspect.signature(problem_store.ProblemStore.get).parameters) == ["self", "problem_id"]
    assert list(inspect.signature(problem_store.TransientStore.put).parameters)[:2] == ["self", "data"]
    assert list(inspect.signature(problem_store.TransientStore.get).parameters)[:2] == ["self", "key"]
    for method in ("put", "get", "exists", "delete", "iter_links", "size", "local_path", "put_object",
                   "get_object", "delete_object", "list_objects", "object_version", "blob_mtime"):
        assert callable(getattr(BlobStore, method))


def test_errors_are_store_errors_and_key_errors():
    for exc in (problem_store.BlobNotFound, problem_store.ProblemNotFound, problem_store.TransientNotFound):
        assert issubclass(exc, problem_store.StoreError) and issubclass(exc, KeyError)
    assert issubclass(problem_store.CorruptBlob, problem_store.StoreError)
