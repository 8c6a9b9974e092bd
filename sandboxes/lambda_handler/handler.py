"""The Lambda function's handler: one event = one batch (or part of one), run by the runner.

Event (built by ``sandboxes.backends.lambda_``; small by design: links, not data)::

    {"v": 1,
     "batch": <sandboxes.types.Batch as JSON>,          # test data only as blob links
     "store": {"bucket": "b", "prefix": "p"} | null,     # where links are read from
     "transient": {"bucket": "b", "prefix": "t"} | null, # where outputs/artifacts go
     "artifact": "store" | "inline" | "none",            # what to do with a compiled program
     "spill_output_over": 1048576,                       # bigger stdouts go to transient by link
     "source_link": "blob://sha256/..."}                 # optional: the Source's code, from the store

Reply: ``{"v": 1, "result": <BatchResult as JSON>}`` or ``{"v": 1, "error": "..."}`` for a
request the handler cannot serve (the caller turns either an error or anything else
unexpected into IE for every run, never a verdict).

Store endpoint: ``OUBLIETTE_S3_ENDPOINT`` (moto overrides ``AWS_ENDPOINT_URL`` inside the
function, so the store has its own variable); defaults for store/transient come from
``OUBLIETTE_STORE_BUCKET`` / ``OUBLIETTE_STORE_PREFIX`` / ``OUBLIETTE_TRANSIENT_PREFIX``.

Who runs the submission: on AWS the function is not root and cannot setuid, so runs keep
the function's uid; the microVM is the outer wall and the runner adds rlimits, a fresh
scratch dir, a clean environment and a killed process group. The handler makes itself
non-dumpable first, so a run of the same uid cannot read the handler's
``/proc/<pid>/environ`` (the role's credentials) or ptrace it. Where the handler is root
(moto's emulation, ``docker run``), runs drop to a random uid in 63000-63999 instead.
After every event /tmp and /dev/shm are emptied (``OUBLIETTE_WIPE_TMP=1``, set only in the
Lambda image): a warm function must not carry one submission's files into the next.

Nothing of a run outlives it (``OUBLIETTE_ISOLATE_RUNS=1``, set only in the Lambda image,
where the function is alone in its execution environment): after every run, and again
before every event, every process of the run uid (or, on AWS, of our own uid but the
handler and its ancestors) is killed by /proc scan until none is left, the IPC namespace
is emptied (SysV shm/msg/sem, POSIX queues), and new entries in /tmp and /dev/shm are
removed; each event gets a freshly created scratch dir. Runs cannot create network
sockets (seccomp: AF_INET/AF_INET6/AF_PACKET/AF_VSOCK, as on every backend), which matters
most here: a function has no network namespace of its own. If a clean-up leaves anything, the entry process exits after
answering, so Lambda starts a fresh runtime for the next event.
"""

from __future__ import annotations

import ctypes
import os
import random
import shutil
import tempfile
import traceback

EVENT_VERSION = 1
_INLINE_ARTIFACT_MAX = 1 << 20  # a bigger compiled program is dropped from an inline reply
_PR_SET_DUMPABLE = 4
_WIPE_AFTER = ("/tmp", "/dev/shm")


def protect_self() -> None:
    """Non-dumpable: same-uid processes cannot read our /proc files or ptrace us."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    except OSError:
        pass


def run_uid() -> int | None:
    return random.randrange(63000, 64000) if os.geteuid() == 0 else None


def use_prebuilt_shim(workdir: str) -> bool:
    """Point the runner at the spawn shim compiled into the image (``OUBLIETTE_SPAWN_SHIM``).

    Why: the runner compiles sandboxes/runner/spawn_shim.c with gcc for each new Runner
    (its scratch dir is per process), which costs ~0.6 s on every Lambda cold start. Until
    the runner takes a prebuilt path itself, its per-directory build cache is seeded here.
    """
    path = os.environ.get("OUBLIETTE_SPAWN_SHIM")
    if not path or not os.access(path, os.X_OK):
        return False
    from sandboxes.runner import shim
    cache = getattr(shim, "_built", None)
    if isinstance(cache, dict):
        cache[os.path.join(workdir, f".runner-{os.getpid()}")] = path
        return True
    return False


_dirty: list[str] = []  # what a run's clean-up left in this environment (see entry.py)


def environment_dirty() -> list[str]:
    return list(_dirty)


def isolating() -> bool:
    return os.environ.get("OUBLIETTE_ISOLATE_RUNS") == "1"


def start_clean(uid: int | None) -> None:
    """Before an event: nothing of an earlier one may remain (e.g. one cut short by the
    function timeout)."""
    from sandboxes.runner import reset
    from sandboxes.runner.core import kill_uid
    if uid is None:
        reset.kill_own_uid_strays()
    else:
        kill_uid(uid)
    reset.clear_ipc(uid)
    wipe()


def wipe(dirs=_WIPE_AFTER) -> None:
    from sandboxes.runner.core import empty_dir
    for d in dirs:
        empty_dir(d)


class Chain:
    """Resolve a link from the first store that has it (links are content-addressed)."""

    def __init__(self, stores: list):
        self.stores = [s for s in stores if s is not None]

    def get(self, link: str) -> bytes:
        from problem_store.blobs.base import BlobNotFound
        last: Exception | None = None
        for store in self.stores:
            try:
                return store.get(link)
            except BlobNotFound as e:
                last = e
        raise last or LookupError(f"no store configured to read {link}")


def _store(desc: dict | None, prefix_env: str):
    """An S3BlobStore from an event descriptor, else from the function's environment."""
    from problem_store.blobs.s3 import S3BlobStore
    if desc is None:
        bucket = os.environ.get("OUBLIETTE_STORE_BUCKET")
        if not bucket:
            return None
        desc = {"bucket": bucket, "prefix": os.environ.get(prefix_env, "")}
    if not isinstance(desc, dict) or not isinstance(desc.get("bucket"), str):
        raise ValueError(f"store descriptor must be {{'bucket': str, 'prefix': str}}, got {desc!r}")
    return S3BlobStore(desc["bucket"], desc.get("prefix") or "",
                       endpoint_url=os.environ.get("OUBLIETTE_S3_ENDPOINT"))


def handle(event: dict) -> dict:
    """Run the event's batch; return the reply object (never raises for a bad event)."""
    from sandboxes.runner.library import execute_batch
    from sandboxes.types import Artifact, Batch, Blob, Source

    try:
        if not isinstance(event, dict) or event.get("v") != EVENT_VERSION:
            raise ValueError(f"event must be an object with v={EVENT_VERSION}")
        batch = Batch.model_validate(event.get("batch"))
        store = _store(event.get("store"), "OUBLIETTE_STORE_PREFIX")
        transient = _store(event.get("transient"), "OUBLIETTE_TRANSIENT_PREFIX")
        artifact_mode = event.get("artifact", "inline")
        spill_over = event.get("spill_output_over")
        if spill_over is not None and (not isinstance(spill_over, int) or spill_over < 0):
            raise ValueError(f"spill_output_over must be a byte count, not {spill_over!r}")
        if artifact_mode not in ("store", "inline", "none"):
            raise ValueError(f"artifact must be store, inline or none, not {artifact_mode!r}")
        source_link = event.get("source_link")
        if source_link is not None and not (isinstance(source_link, str) and isinstance(batch.program, Source)):
            raise ValueError("source_link must be a blob link, and the program a Source")
    except Exception as e:  # noqa: BLE001 - a malformed event is answered, not crashed on
        return {"v": EVENT_VERSION, "error": f"bad event: {e}"}

    root = os.environ.get("OUBLIETTE_WORKDIR", "/tmp")
    uid, isolate = run_uid(), isolating()
    if isolate:
        try:
            start_clean(uid)
        except RuntimeError as e:  # a process we cannot kill: refuse rather than run beside it
            _dirty.append(str(e))
            return {"v": EVENT_VERSION, "error": f"environment not clean: {e}"}
    workdir = tempfile.mkdtemp(prefix="oubliette-", dir=root)
    os.chmod(workdir, 0o755)  # the scratch root: each run's own box inside it is 0700
    # Without a run uid, runs could rewrite a shim built in the scratch root (same uid):
    # use the image's read-only one, or fork.
    prebuilt = use_prebuilt_shim(workdir)
    spawn = "auto" if prebuilt or uid is not None else "fork"
    try:
        if source_link is not None:
            batch.program.code = Chain([store, transient]).get(source_link).decode()
        result = execute_batch(batch, Chain([store, transient]), workdir, run_uid=uid, spawn=spawn,
                               output_store=transient, backend="lambda", own_namespace=isolate,
                               wipe_new_in=list(_WIPE_AFTER) if isolate else None,
                               on_leftover=_dirty.extend)
    except Exception as e:  # noqa: BLE001 - e.g. the source link is missing: refused, not crashed on
        traceback.print_exc()
        return {"v": EVENT_VERSION, "error": f"cannot run the batch: {type(e).__name__}: {e}"}
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        if os.environ.get("OUBLIETTE_WIPE_TMP") == "1":  # set in the Lambda image only
            wipe()

    if spill_over is not None and transient is not None:
        # Lambda's reply is capped at 6 MB: a big stdout travels by link instead.
        for run in result.runs:
            if run.stdout is not None and len(run.stdout) > spill_over:
                run.stdout_link, _ = transient.put(run.stdout)
                run.stdout = None
    comp = result.compile
    if comp is not None and comp.artifact is not None and comp.artifact.blob.data is not None:
        data = comp.artifact.blob.data
        if artifact_mode == "store" and transient is not None:
            link, _ = transient.put(data)
            comp.artifact = Artifact(language=comp.artifact.language, blob=Blob(link=link))
        elif artifact_mode == "none" or len(data) > _INLINE_ARTIFACT_MAX:
            comp.artifact = None
    return {"v": EVENT_VERSION, "result": result.model_dump(mode="json")}


def lambda_handler(event, context=None):  # the name AWS's own runtimes look for
    return handle(event)
