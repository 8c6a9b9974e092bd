"""Constructor options for each backend under test (a hook the backend owners edit).

``BACKEND_OPTIONS[name]`` is a dict of keyword options for
``sandboxes.backends.registry.create_backend(name, resolver=store, **options)``, or a
callable ``(request) -> dict`` when an option needs a fixture (e.g. the moto endpoint:
``lambda request: {"endpoint_url": request.getfixturevalue("moto_endpoint")}``).
``resolver`` and ``output_store`` (one FileBlobStore in a session temp dir) are passed by
the fixture; an entry here overrides them.
"""

from __future__ import annotations

BACKEND_OPTIONS: dict = {
    "local": {},
    "docker": {},
    "lambda": {},
}
