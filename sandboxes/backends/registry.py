"""One place that turns a backend name into a backend: ``create_backend(name, **options)``.

Backends are imported lazily so that, e.g., the local backend works on a host without
boto3 or the Docker SDK, and a missing backend fails with a clear error naming it.
"""

from __future__ import annotations

import importlib

from sandboxes.backends.base import SandboxBackend, SandboxError

# name -> (module, class)
BACKENDS: dict[str, tuple[str, str]] = {
    "local": ("sandboxes.backends.local", "LocalBackend"),
    "docker": ("sandboxes.backends.docker", "DockerBackend"),
    "lambda": ("sandboxes.backends.lambda_", "LambdaBackend"),
}


def create_backend(name: str, **options) -> SandboxBackend:
    """Build (not start) the backend called ``name`` with its constructor options."""
    try:
        module_name, class_name = BACKENDS[name]
    except KeyError:
        raise ValueError(f"unknown sandbox backend {name!r}; known: {', '.join(BACKENDS)}") from None
    try:
        module = importlib.import_module(module_name)
        cls = getattr(module, class_name)
    except (ImportError, AttributeError) as exc:
        raise SandboxError(f"sandbox backend {name!r} is not available: {exc}") from exc
    return cls(**options)
