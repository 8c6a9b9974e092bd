"""The API fuzzed from its own OpenAPI document (schemathesis) against a real server process:
whatever the generated request, the answer is never a 5xx, never a hang, and every response
conforms to the documented status codes and schemas."""

from __future__ import annotations

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.checks import not_a_server_error, response_schema_conformance, status_code_conformance  # noqa: E402

from verifier.openapi import build_openapi  # noqa: E402

schema = schemathesis.openapi.from_dict(build_openapi())
# Both valid requests and requests that break the schema (those must be 4xx, never 5xx).
schema.config.generation.update(modes=list(schemathesis.GenerationMode))


@pytest.fixture(scope="module")
def base_url(fast_server):
    return fast_server.url


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_server_errors(case, base_url):
    case.call_and_validate(base_url=base_url, timeout=60,
                           checks=[not_a_server_error, status_code_conformance,
                                   response_schema_conformance])



def test_fuzzing_reached_both_accepting_and_rejecting_paths(fast_server):
    """Runs after the fuzz cases: the generated traffic must include accepted (200) and
    schema-rejected (422 or 400) requests, or the fuzzing proved nothing."""
    statuses = {e.get("status") for e in fast_server.log_lines() if e.get("msg") == "request"}
    assert 200 in statuses and statuses & {400, 422}, statuses
    assert not {s for s in statuses if isinstance(s, int) and s >= 500}, statuses
