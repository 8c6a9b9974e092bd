"""A moto server whose Lambda runs the project's function image in Docker (tests only).

``moto_lambda_env()`` builds (if needed) ``busybox:latest`` and ``oubliette-lambda:<tag>``,
starts ``moto_server`` on 127.0.0.1 with MOTO_DOCKER_LAMBDA_IMAGE set and host networking
(so the handler reaches moto's S3 on 127.0.0.1), then creates the IAM role, the store
bucket and two functions: ``oubliette-runner`` (Timeout 60 s) and ``oubliette-short``
(Timeout 2 s). One server per test session, shared by test_lambda_backend.py and the
``lambda`` parametrization of the shared suites (backend_options.py).
"""

from __future__ import annotations

import atexit
import io
import json
import threading
import zipfile
from dataclasses import dataclass

BUCKET, STORE_PREFIX, TRANSIENT_PREFIX = "judge", "store", "transient"
FUNCTION, SHORT_FUNCTION = "oubliette-runner", "oubliette-short"
REGION = "us-east-1"


@dataclass
class MotoLambda:
    endpoint: str
    image: str

    def store(self, prefix: str = STORE_PREFIX):
        from problem_store.blobs.s3 import S3BlobStore
        return S3BlobStore(BUCKET, prefix, endpoint_url=self.endpoint, region=REGION)


_lock = threading.Lock()
_env: MotoLambda | None = None


def _code_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("README", "the handler lives in the image (MOTO_DOCKER_LAMBDA_IMAGE)\n")
    return buf.getvalue()


def moto_lambda_env(request=None) -> MotoLambda:
    """Start (once per process) and return the moto Lambda environment; with a pytest
    ``request`` the server stops at the end of the session (else at interpreter exit)."""
    global _env
    with _lock:
        if _env is not None:
            return _env
        import boto3
        from sandboxes.backends import docker_image
        from tests.moto_server import start_moto_server
        docker_image.ensure_busybox()
        image = docker_image.ensure_lambda()
        endpoint, stop = start_moto_server(env={"MOTO_DOCKER_LAMBDA_IMAGE": image,
                                                "MOTO_DOCKER_NETWORK_MODE": "host"})
        atexit.register(stop)
        if request is not None:
            request.config.add_cleanup(stop)
        iam = boto3.client("iam", endpoint_url=endpoint, region_name=REGION)
        role = iam.create_role(RoleName="oubliette-runner", AssumeRolePolicyDocument=json.dumps({
            "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole",
                                                     "Principal": {"Service": "lambda.amazonaws.com"}}]}))
        lam = boto3.client("lambda", endpoint_url=endpoint, region_name=REGION)
        for name, timeout in ((FUNCTION, 60), (SHORT_FUNCTION, 2)):
            lam.create_function(FunctionName=name, Runtime="python3.11", Role=role["Role"]["Arn"],
                                Handler="sandboxes.lambda_handler.handler.lambda_handler",
                                Code={"ZipFile": _code_zip()}, Timeout=timeout, MemorySize=1024,
                                Environment={"Variables": {"OUBLIETTE_S3_ENDPOINT": endpoint,
                                                           "OUBLIETTE_STORE_BUCKET": BUCKET,
                                                           "OUBLIETTE_STORE_PREFIX": STORE_PREFIX,
                                                           "OUBLIETTE_TRANSIENT_PREFIX": TRANSIENT_PREFIX}})
        from problem_store.blobs.s3 import S3BlobStore
        S3BlobStore(BUCKET, STORE_PREFIX, endpoint_url=endpoint, region=REGION, create_bucket=True)
        _env = MotoLambda(endpoint, image)
        return _env

