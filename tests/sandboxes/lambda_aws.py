"""The ``lambda-aws`` backend for tests: the Lambda image run the way AWS runs it.

moto (the ``lambda`` backend under test) starts a fresh root container per invoke, so it
cannot show what one warm, non-root execution environment carries from one invocation to
the next. Here one container of ``oubliette-lambda:<tag>`` is started like a Lambda
execution environment and reused for every invocation of the test session:

- read-only root filesystem, a size-capped tmpfs ``/tmp`` owned by the function user (as
  EphemeralStorage), no network (the container has only ``lo``), cap-drop ALL but what
  the emulator needs to start the function as another user and kill it;
- the image's own ENTRYPOINT + CMD run as uid ``FUNCTION_UID`` (not root), with
  ``AWS_LAMBDA_RUNTIME_API`` set, so ``sandboxes/lambda_handler/entry.py`` serves the
  Runtime API loop exactly as on AWS;
- AWS's side (the Runtime API server, the invoke channel, the timeout) is
  ``lambda_runtime_emulator.py``, the container's pid 1, as root;
- the handler reads and writes S3 through 127.0.0.1:9002 in the container, relayed over a
  unix socket to a moto S3 server on the host's loopback.

The backend itself is the production ``LambdaBackend`` with a client that speaks to the
emulator instead of boto3's Lambda client, and ``max_concurrency=1``: every invoke of the
session lands in the same execution environment, in turn.
"""

from __future__ import annotations

import atexit
import io
import json
import os
import shutil
import socket
import struct
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from sandboxes.backends.lambda_ import LambdaBackend

FUNCTION_UID = 993  # what AWS's sbx_user1051 is in the python runtimes
BUCKET, STORE_PREFIX, TRANSIENT_PREFIX = "judge-aws", "store", "transient"
REGION = "us-east-1"
_EMULATOR = Path(__file__).with_name("lambda_runtime_emulator.py")
LABEL = "org.oubliette.lambda-aws"


class EmulatedLambdaClient:
    """The one boto3 Lambda client call the backend makes, answered by the emulator."""

    def __init__(self, sock_path: str, timeout_s: float):
        self.sock_path, self.timeout_s = sock_path, timeout_s
        self.invokes = 0

    def invoke(self, FunctionName: str, InvocationType: str, Payload: bytes) -> dict:  # noqa: N803 - boto3's names
        self.invokes += 1
        req = json.dumps({"payload": Payload.decode(), "timeout_s": self.timeout_s}).encode()
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(self.timeout_s + 60)
            s.connect(self.sock_path)
            s.sendall(struct.pack(">I", len(req)) + req)
            (n,) = struct.unpack(">I", _recv(s, 4))
            reply = json.loads(_recv(s, n))
        return {"StatusCode": 200, "FunctionError": reply["function_error"],
                "Payload": io.BytesIO(reply["payload"].encode())}


def _recv(s: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("emulator closed the connection")
        buf += chunk
    return buf


class AwsEmulatedLambdaBackend(LambdaBackend):
    """``LambdaBackend`` against one warm, non-root execution environment."""

    name = "lambda-aws"
    not_covered = {
        "network": "a function has no network namespace: runs keep the function's network "
                   "(here the container has none); what the runner adds is the seccomp rule "
                   "refusing network sockets, tested by test_runs_cannot_open_network_sockets",
        "signals": "runs share the function's uid (AWS gives no second one): a run can signal "
                   "the handler; that invocation fails (IE) and the runtime restarts; it cannot "
                   "answer in the handler's place (test_killing_the_handler_is_ie_never_a_verdict)",
        "write_outside_scratch": "runs share the function's uid, so they can write where the "
                                 "handler can: /tmp; new entries are removed after every run "
                                 "(test_no_state_survives_from_one_run_to_the_next)",
        "scratch_files": LambdaBackend.not_covered["scratch_files"],
    }


@dataclass
class AwsLambdaEnv:
    container: object
    ipc: Path
    s3_endpoint: str
    client: EmulatedLambdaClient
    stops: list = field(default_factory=list)

    def store(self, prefix: str = STORE_PREFIX):
        from problem_store.blobs.s3 import S3BlobStore
        return S3BlobStore(BUCKET, prefix, endpoint_url=self.s3_endpoint, region=REGION)

    def logs(self) -> str:
        try:
            return self.container.logs(tail=50).decode(errors="replace")
        except Exception as e:  # noqa: BLE001
            return repr(e)

    def inits(self) -> int:
        """How many times the runtime was started (1 + restarts after exit/timeout)."""
        return self.logs().count("runtime-started")

    def stop(self) -> None:
        for fn in reversed(self.stops):
            try:
                fn()
            except Exception:  # noqa: BLE001 - best effort at teardown
                pass
        self.stops.clear()


def _relay_unix_to_tcp(sock_path: str, port: int) -> callable:
    """Accept on a unix socket (bind-mounted into the container), forward to 127.0.0.1:port."""
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(sock_path)
    srv.listen(16)
    stop = threading.Event()

    def pump(a, b):
        try:
            while chunk := a.recv(1 << 16):
                b.sendall(chunk)
        except OSError:
            pass
        finally:
            for x in (a, b):
                try:
                    x.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def loop():
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            up = socket.create_connection(("127.0.0.1", port))
            threading.Thread(target=pump, args=(conn, up), daemon=True).start()
            threading.Thread(target=pump, args=(up, conn), daemon=True).start()

    threading.Thread(target=loop, daemon=True).start()

    def close():
        stop.set()
        srv.close()
    return close


def start_aws_env(timeout_s: float = 60.0, memory_mb: int = 2048, tmp_mb: int = 512,
                  extra_env: dict | None = None, image: str | None = None) -> AwsLambdaEnv:
    """Start one execution environment of ``image`` (default: this checkout's Lambda image)."""
    import docker
    from problem_store.blobs.s3 import S3BlobStore
    from sandboxes.backends import docker_image
    from tests.moto_server import start_moto_server

    client = docker.from_env(timeout=120)
    image = image or docker_image.ensure_lambda(client)
    cfg = client.images.get(image).attrs["Config"]
    cmd = list(cfg.get("Entrypoint") or []) + list(cfg.get("Cmd") or [])
    stops: list = []
    s3_endpoint, stop_moto = start_moto_server()
    stops.append(stop_moto)
    S3BlobStore(BUCKET, STORE_PREFIX, endpoint_url=s3_endpoint, region=REGION, create_bucket=True)
    ipc = Path(tempfile.mkdtemp(prefix="oubliette-lambda-aws-"))
    os.chmod(ipc, 0o700)
    stops.append(lambda: shutil.rmtree(ipc, ignore_errors=True))
    emu = Path(tempfile.mkdtemp(prefix="oubliette-lambda-emu-"))
    os.chmod(emu, 0o755)
    shutil.copy2(_EMULATOR, emu / "emulator.py")
    os.chmod(emu / "emulator.py", 0o644)
    stops.append(lambda: shutil.rmtree(emu, ignore_errors=True))
    stops.append(_relay_unix_to_tcp(str(ipc / "s3.sock"), int(s3_endpoint.rsplit(":", 1)[1])))
    fenv = {"AWS_LAMBDA_FUNCTION_NAME": "oubliette-runner", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(memory_mb),
            "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST", "AWS_REGION": REGION, "AWS_DEFAULT_REGION": REGION,
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "LAMBDA_TASK_ROOT": "/var/task",
            "OUBLIETTE_S3_ENDPOINT": "http://127.0.0.1:9002", "OUBLIETTE_STORE_BUCKET": BUCKET,
            "OUBLIETTE_STORE_PREFIX": STORE_PREFIX, "OUBLIETTE_TRANSIENT_PREFIX": TRANSIENT_PREFIX,
            **(extra_env or {})}
    argv = ["/usr/bin/python3", "-S", "/emu/emulator.py", "--uid", str(FUNCTION_UID), "--ipc", "/ipc"]
    for k, v in fenv.items():
        argv += ["--env", f"{k}={v}"]
    container = client.containers.run(
        image, entrypoint=argv + ["--", *cmd], command=[], detach=True, user="0:0",
        labels={LABEL: str(os.getpid())}, network_mode="none", read_only=True,
        tmpfs={"/tmp": f"rw,exec,nosuid,nodev,size={tmp_mb}m,mode=0700,uid={FUNCTION_UID},gid={FUNCTION_UID}"},
        volumes={str(ipc): {"bind": "/ipc", "mode": "rw"}, str(emu): {"bind": "/emu", "mode": "ro"}},
        cap_drop=["ALL"], cap_add=["SETUID", "SETGID", "KILL"], security_opt=["no-new-privileges"],
        mem_limit=f"{memory_mb}m", memswap_limit=f"{memory_mb}m", pids_limit=1024, init=False)
    stops.append(lambda: container.remove(force=True))
    deadline = time.monotonic() + 60
    while not (ipc / "invoke.sock").exists():
        container.reload()
        if container.status != "running" or time.monotonic() > deadline:
            logs = container.logs(tail=30).decode(errors="replace")
            for fn in reversed(stops):
                fn()
            raise RuntimeError(f"the Lambda emulator did not start ({container.status}):\n{logs}")
        time.sleep(0.05)
    env = AwsLambdaEnv(container, ipc, s3_endpoint, EmulatedLambdaClient(str(ipc / "invoke.sock"), timeout_s),
                       stops)
    atexit.register(env.stop)
    return env


def make_backend(env: AwsLambdaEnv, *, resolver=None, output_store=None, timeout_s: float = 60.0,
                 **kw) -> AwsEmulatedLambdaBackend:
    """Linked blobs of ``resolver`` are staged into the env's S3; outputs come back inline."""
    opts = dict(function_name="oubliette-runner", function_timeout_s=timeout_s, max_concurrency=1,
                runs_per_invoke=64, region=REGION)
    opts.update(kw)
    return AwsEmulatedLambdaBackend(resolver=resolver, output_store=output_store, stage_store=env.store(),
                                    client=env.client, **opts)
