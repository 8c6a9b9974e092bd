"""Build a VerifierService from a config: open the store, create the sandbox backend.

The one place the service's parts are chosen (store by URI, backend by name), so the HTTP
server and the embedded client are wired identically.
"""

from __future__ import annotations

from problem_store.uri import open_store
from sandboxes.backends.registry import create_backend
from verifier.config import VerifierConfig
from verifier.service import VerifierService


def build_service(config: VerifierConfig) -> VerifierService:
    blobs = open_store(config.store_uri)
    options = dict(config.backend_options)
    options.setdefault("resolver", blobs)  # backends read linked inputs straight from the store
    backend = create_backend(config.backend, **options)
    return VerifierService(config, backend, blobs)
