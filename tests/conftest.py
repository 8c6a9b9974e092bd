"""Root test configuration: repo root on sys.path, fake AWS credentials, a moto server."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

# Tests must never reach real AWS: fake credentials, whatever the environment holds.
os.environ["AWS_ACCESS_KEY_ID"] = "testing"
os.environ["AWS_SECRET_ACCESS_KEY"] = "testing"
os.environ["AWS_SESSION_TOKEN"] = "testing"
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
for _var in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "OUBLIETTE_S3_ENDPOINT", "OUBLIETTE_STORE"):
    os.environ.pop(_var, None)

from tests.moto_server import reset_moto, start_moto_server  # noqa: E402


@pytest.fixture(scope="session")
def moto_endpoint():
    """URL of a moto server (S3, Lambda, IAM...) on 127.0.0.1, shared by the session."""
    endpoint, stop = start_moto_server()
    try:
        yield endpoint
    finally:
        stop()


@pytest.fixture
def fresh_moto(moto_endpoint):
    """The session's moto server, emptied before the test."""
    reset_moto(moto_endpoint)
    return moto_endpoint
