"""Constructor options for each backend under test (a hook the backend owners edit).

``BACKEND_OPTIONS[name]`` is a dict of keyword options for
``sandboxes.backends.registry.create_backend(name, resolver=store, **options)``, or a
callable ``(request) -> dict`` when an option needs a fixture (e.g. the moto endpoint:
``lambda request: {"endpoint_url": request.getfixturevalue("moto_endpoint")}``).
``resolver`` and ``output_store`` (one FileBlobStore in a session temp dir) are passed by
the fixture; an entry here overrides them.
"""

from __future__ import annotations



def _lambda_options(request) -> dict:
    """moto runs the function image in Docker; linked blobs from the suite's FileBlobStore
    are staged into moto's S3, outputs come back inline and land in that FileBlobStore."""
    from tests.sandboxes.moto_lambda import FUNCTION, REGION, moto_lambda_env
    env = moto_lambda_env(request)
    return {"endpoint_url": env.endpoint, "region": REGION, "function_name": FUNCTION,
            "stage_store": env.store(), "max_concurrency": 4, "runs_per_invoke": 64}


def _lambda_aws(request, **stores):
    """The Lambda image in one warm, non-root execution environment (tests/sandboxes/lambda_aws.py)."""
    from tests.sandboxes.lambda_aws import make_backend, start_aws_env
    env = start_aws_env()
    request.config.add_cleanup(env.stop)
    return make_backend(env, **stores)


# Backends that are not in sandboxes.backends.registry (test-only setups of a real backend):
# name -> (request, resolver=, output_store=) -> an unstarted backend.
BACKEND_FACTORIES: dict = {
    "lambda-aws": _lambda_aws,
}

BACKEND_OPTIONS: dict = {
    "local": {},
    # docker: the defaults (pool of CPU-count containers from oubliette-sandbox:<hash>).
    "docker": {},
    "lambda": _lambda_options,
}
