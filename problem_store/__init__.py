"""Problems, test data and checkers in a content-addressed blob store (file or S3).

The public surface other parts use (pinned by tests/problem_store/test_store_api.py):

- ``open_store(uri)`` -> ``BlobStore`` (``put/get/exists/local_path``, named objects)
- ``ProblemStore(blobs)``: ``get(id)``, ``list(kind, split)``, ``ids()``, ``exists``, ``put``, ``delete``, ``gc``
- ``TransientStore(blobs, ttl_s)``: ``put(data) -> "transient://..."``, ``get(key)``, ``gc()``
- errors: ``StoreError`` > ``BlobNotFound``, ``CorruptBlob``, ``ProblemNotFound``, ``TransientNotFound``
"""

from problem_store.blobs.base import BlobNotFound, BlobStore, CorruptBlob, StoreError, link_for
from problem_store.problems import ProblemNotFound, ProblemStore, ProblemSummary
from problem_store.transient import TransientNotFound, TransientStore
from problem_store.uri import default_store_uri, open_store

__all__ = [
    "BlobNotFound",
    "BlobStore",
    "CorruptBlob",
    "ProblemNotFound",
    "ProblemStore",
    "ProblemSummary",
    "StoreError",
    "TransientNotFound",
    "TransientStore",
    "default_store_uri",
    "link_for",
    "open_store",
]
