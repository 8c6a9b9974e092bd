"""Fixtures for the security suite: ``backend`` (see backend_fixture.py)."""

from tests.sandboxes.backend_fixture import make_backend_fixture

backend = make_backend_fixture()
