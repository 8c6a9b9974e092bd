"""The lambda backend: batches run by an AWS Lambda function whose handler is the runner.

Why Lambda: judging bursts (an RL step verifies thousands of programs at once) need
far more cores than one host has; Lambda gives up to the account's concurrency in
seconds. Capacity here is the number of concurrent invocations we allow ourselves.

What one invoke carries (``sandboxes/lambda_handler/handler.py`` documents the event):
limits, blob *links*, and the code when it is small. Neither test data nor a large source
travels in the event: inline data and a source above ``inline_max_bytes`` are uploaded to
the S3 store first and replaced by their link (``source_link`` for the source), so an
event is bounded by the run specs alone and stays far below both Lambda's 6 MB request
limit and moto's 128 KiB (one argv string, Linux MAX_ARG_STRLEN) whatever the program's
size (the API accepts 256 KB sources; inline, JSON escaping can double that).
Outputs come back inline, or as links into the transient store when
``batch.output_to_store``.

Splitting: a batch's runs are packed into chunks (at most ``runs_per_invoke`` runs, and
their wall limits must fit in the function's timeout) invoked concurrently. When there is
more than one chunk and the program is source code, one compile-only invoke comes first
and stores the artifact, so the program is compiled once per batch, not once per chunk.
With ``stop_on_failure`` the first chunk is invoked alone and the others only if it passed.

Failures are never verdicts: a function error, a timeout, a 413 (request too large), a
payload that is not the reply we expect, or throttling that outlasts the retry budget
make every affected run IE with a message. Throttling (429 TooManyRequestsException) is
retried with capped exponential backoff and full jitter.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random

from pydantic import BaseModel, ConfigDict, Field

from sandboxes.backends.base import SandboxBackend, SandboxError
from sandboxes.runner import batching
from sandboxes.types import (Artifact, Batch, BatchResult, Blob, CompileResult, RunResult,
                             RunSpec, Source, Status)

log = logging.getLogger(__name__)
EVENT_VERSION = 1
_THROTTLE_CODES = {"TooManyRequestsException", "ThrottlingException", "EC2ThrottledException"}
_RETRY_CODES = _THROTTLE_CODES | {"ServiceException", "ResourceNotReadyException"}


class LambdaBackendConfig(BaseModel):
    """Options of the lambda backend (``sandboxes.backends.registry`` passes them through)."""

    model_config = ConfigDict(extra="forbid")

    function_name: str = Field("oubliette-runner", min_length=1, description="Function name or ARN.")
    region: str | None = Field(None, description="AWS region (None: the environment's).")
    endpoint_url: str | None = Field(None, description="Lambda API endpoint (moto or a fake in tests).")
    max_concurrency: int = Field(64, ge=1, le=10000, description="Concurrent invocations (= capacity).")
    runs_per_invoke: int = Field(16, ge=1, le=1000, description="Most runs one invocation carries.")
    function_timeout_s: float = Field(
        60.0, gt=0, le=900, description="The function's configured Timeout; chunks are sized to fit it.")
    inline_max_bytes: int = Field(
        4096, ge=0, le=1 << 20, description="Inline blobs bigger than this are uploaded and sent as links.")
    max_event_bytes: int = Field(
        100_000, ge=1024, le=6_000_000,
        description="Refuse (IE) an event bigger than this after spilling. With an S3 store, "
                    "sources and data over inline_max_bytes travel by link, so only the run specs "
                    "count (runs_per_invoke x (inline_max_bytes x 4/3 + ~300 B) with the defaults: "
                    "~90 KB); without one, everything is inline and this bounds the program size. "
                    "The default stays under moto's 128 KiB argv string.")
    throttle_retries: int = Field(8, ge=0, le=50, description="Retries of a throttled or 5xx invoke.")
    backoff_base_s: float = Field(0.1, gt=0, le=10, description="First backoff; doubles per retry.")
    backoff_max_s: float = Field(5.0, gt=0, le=120, description="Cap of one backoff (full jitter below it).")
    connect_timeout_s: float = Field(5.0, gt=0, le=120)
    read_margin_s: float = Field(30.0, gt=0, le=600, description="Read timeout beyond function_timeout_s.")
    spill_output_over_bytes: int = Field(
        1 << 20, ge=0, le=5 << 20, description="A stdout bigger than this comes back by link (the "
                                               "reply is capped at 6 MB); needs an S3 store.")
    store_bucket: str | None = Field(None, description="Event 'store' bucket (None: the function's env).")
    store_prefix: str = Field("", description="Event 'store' prefix.")


class LambdaBackend(SandboxBackend):
    name = "lambda"
    # Claims of the sandbox threat model this backend cannot make by itself: Lambda gives no
    # namespaces, so they are properties of the deployment (the security suite can skip
    # them for this backend, citing the reason).
    not_covered = {
        "network": "runs keep the function's network: deploy in VPC subnets without a NAT route "
                   "(infra/lambda/template.yaml SubnetIds); moto's emulation uses the host network",
        "scratch_size": "the scratch space is the function's /tmp, capped by EphemeralStorage on AWS; "
                        "moto's emulation has no cap",
        "scratch_files": "the function's /tmp is not a mount the runner can cap by file count; each "
                         "invocation's files go with its execution environment",
    }

    # No cgroup inside a function: CPU time of the run's tree comes from a /proc scan of its
    # session (sandboxes/runner/cpu_meter.py TreeMeter), memory is RLIMIT_AS per process.
    accounting = "rlimit"
    accounting_note = "AWS Lambda offers no cgroup to a function: /proc-scan CPU, RLIMIT_AS memory"

    def __init__(self, config: LambdaBackendConfig | None = None, *, resolver=None,
                 output_store=None, stage_store=None, client=None, **options):
        """Stores (``S3BlobStore``s, or anything with ``get``/``put`` and, for S3, ``bucket``/``prefix``):

        - ``resolver``: where links are read. If it is an S3 store the function reads it
          directly; otherwise ``stage_store`` (S3) is required and every linked blob of a
          batch is copied there first (content-addressed, so a blob already there is skipped).
        - inline data over ``inline_max_bytes`` is uploaded to that same S3 store.
        - ``output_store``: for ``output_to_store``. An S3 store: the function writes outputs
          there and returns links. Anything else: outputs come back inline and are put here.
        """
        if config is not None and options:
            raise TypeError("pass either config or keyword options, not both")
        self.config = config or LambdaBackendConfig(**options)
        self.resolver = resolver
        self.output_store = output_store
        self.stage_store = stage_store
        self._s3_in = resolver if _is_s3(resolver) else stage_store if _is_s3(stage_store) else None
        self._s3_out = output_store if _is_s3(output_store) else None
        self._client = client
        self._sem: asyncio.Semaphore | None = None
        self.invokes = 0  # counters for tests and stats
        self.throttled = 0

    @property
    def capacity(self) -> int:
        return self.config.max_concurrency

    async def start(self) -> None:
        if self._client is None:
            self._client = await asyncio.to_thread(self._make_client)
        self._sem = asyncio.Semaphore(self.config.max_concurrency)

    def _make_client(self):
        import boto3
        from botocore.config import Config
        c = self.config
        cfg = Config(connect_timeout=c.connect_timeout_s, read_timeout=c.function_timeout_s + c.read_margin_s,
                     retries={"total_max_attempts": 1, "mode": "standard"},  # we retry, visibly and bounded
                     max_pool_connections=min(c.max_concurrency, 256))
        return boto3.client("lambda", region_name=c.region, endpoint_url=c.endpoint_url, config=cfg)

    async def close(self) -> None:
        self._client = None
        self._sem = None

    # -- one batch ---------------------------------------------------------------------
    async def run_batch(self, batch: Batch) -> BatchResult:
        if self._sem is None:
            raise SandboxError("lambda backend is not started")
        try:
            batch = await asyncio.to_thread(self._spill, batch)
        except Exception as e:  # a missing blob, or the store failed: nothing could run
            return _all_ie(batch, f"could not stage batch data in the S3 store: {e}")
        try:
            source_link = await asyncio.to_thread(self._spill_source, batch.program)
        except Exception as e:
            return _all_ie(batch, f"could not stage the program source in the S3 store: {e}")
        chunks = self._chunks(batch.runs)
        compile_result: CompileResult | None = None
        program = batch.program
        if isinstance(program, Source) and len(chunks) > 1:
            async with self._sem:
                head = await self._invoke(batch.model_copy(update={"runs": [], "stop_on_failure": False}),
                                          artifact="store", source_link=source_link)
            if isinstance(head, str):
                return _all_ie(batch, head, CompileResult(status=Status.IE, log=head))
            compile_result = head.compile
            if compile_result is None or compile_result.status != Status.OK or compile_result.artifact is None:
                status = compile_result.status if compile_result and compile_result.status != Status.OK else Status.IE
                return BatchResult(compile=compile_result, backend=self.name, runs=[
                    RunResult(id=r.id, status=status, skipped=True, message=f"not run: compile {status.value}")
                    for r in batch.runs])
            program = compile_result.artifact
            try:  # an inline artifact bigger than inline_max_bytes goes to S3 once, not in every event
                program = (await asyncio.to_thread(
                    self._spill, batch.model_copy(update={"program": program, "runs": []}))).program
            except Exception as e:
                return _all_ie(batch, f"could not stage the compiled program: {e}", compile_result)
        results = await self._run_chunks(batch, program, chunks, source_link)
        if isinstance(batch.program, Source) and compile_result is None:
            compile_result = results.pop("compile", None)
        return BatchResult(compile=compile_result, runs=results["runs"], backend=self.name)

    async def _run_chunks(self, batch: Batch, program: Source | Artifact, chunks: list[list[RunSpec]],
                          source_link: str | None = None) -> dict:
        first_failure: list[RunResult] = []
        out: dict = {"runs": []}

        async def one(chunk: list[RunSpec]) -> list[RunResult]:
            async with self._sem:  # checked after the wait: a failure may have come meanwhile
                if batch.stop_on_failure and first_failure:
                    f = first_failure[0]
                    return [RunResult(id=r.id, status=f.status, skipped=True,
                                      message=f"skipped: run {f.id!r} was {f.status.value}") for r in chunk]
                sub = batch.model_copy(update={"program": program, "runs": chunk})
                res = await self._invoke(sub, artifact="inline" if isinstance(program, Source) else "none",
                                         source_link=source_link if isinstance(program, Source) else None)
            if isinstance(res, str):
                runs = [RunResult(id=r.id, status=Status.IE, message=res) for r in chunk]
                if isinstance(program, Source):
                    out["compile"] = CompileResult(status=Status.IE, log=res)
            else:
                runs = res.runs
                if isinstance(program, Source):
                    out["compile"] = res.compile
            bad = next((r for r in runs if r.status != Status.OK and not r.skipped), None)
            if bad is not None and not first_failure:
                first_failure.append(bad)
            return runs

        # With stop_on_failure the first chunk goes alone: most failing submissions fail an
        # early test, and then no other chunk is ever invoked. The rest go concurrently.
        lead = [await one(chunks[0])] if batch.stop_on_failure and len(chunks) > 1 else []
        tasks = []
        for chunk in chunks[len(lead):]:
            tasks.append(asyncio.create_task(one(chunk)))
            await asyncio.sleep(0)  # start in order, so "first failure" follows batch order
        for runs in lead + list(await asyncio.gather(*tasks)):
            out["runs"].extend(runs)
        return out

    def _chunks(self, runs: list[RunSpec]) -> list[list[RunSpec]]:
        """Pack runs in order: at most runs_per_invoke, wall limits summing within the timeout."""
        budget = self.config.function_timeout_s * 0.8
        chunks: list[list[RunSpec]] = []
        cur: list[RunSpec] = []
        used = 0.0
        for r in runs:
            w = r.limits.wall_time_s + 0.5
            if cur and (len(cur) >= self.config.runs_per_invoke or used + w > budget):
                chunks.append(cur)
                cur, used = [], 0.0
            cur.append(r)
            used += w
        if cur or not chunks:
            chunks.append(cur)
        return chunks

    # -- spilling inline data to the store -------------------------------------------------
    def _spill(self, batch: Batch) -> Batch:
        """Big inline data -> S3 links; links of a non-S3 resolver -> staged into S3."""
        limit = self.config.inline_max_bytes
        staged: set[str] = set()

        def fix(blob: Blob | None) -> Blob | None:
            if blob is None:
                return None
            if blob.link is not None:
                if self._s3_in is not None and self._s3_in is not self.resolver and blob.link not in staged:
                    if not self._s3_in.exists(blob.link):
                        self._s3_in.put(self.resolver.get(blob.link))  # re-hashed by get()
                    staged.add(blob.link)
                return blob
            if len(blob.data) <= limit:
                return blob
            if self._s3_in is None:  # stays inline; max_event_bytes refuses an event too big
                return blob
            link, _ = self._s3_in.put(blob.data)
            return Blob(link=link)

        runs = [r.model_copy(update={"stdin": fix(r.stdin),
                                     "files": {k: fix(v) for k, v in r.files.items()}}) for r in batch.runs]
        program = batch.program
        if isinstance(program, Artifact):
            program = Artifact(language=program.language, blob=fix(program.blob))
        return batch.model_copy(update={"runs": runs, "program": program})

    def _spill_source(self, program: Source | Artifact) -> str | None:
        """A source over ``inline_max_bytes`` -> its link in the S3 store (None: stays inline)."""
        if not isinstance(program, Source) or self._s3_in is None:
            return None
        data = program.code.encode()
        if len(data) <= self.config.inline_max_bytes:
            return None
        link, _ = self._s3_in.put(data)
        return link

    # -- one invocation ----------------------------------------------------------------------
    def _event(self, batch: Batch, artifact: str, source_link: str | None = None) -> dict:
        def desc(store, bucket=None, prefix=""):
            if bucket:
                return {"bucket": bucket, "prefix": prefix}
            if store is not None and hasattr(store, "bucket"):
                return {"bucket": store.bucket, "prefix": getattr(store, "prefix", "")}
            return None
        host_stores_output = batch.output_to_store and self._s3_out is None
        if host_stores_output:  # the function returns stdout inline; we put it in output_store
            batch = batch.model_copy(update={"output_to_store": False})
        extra = {}
        if source_link is not None:  # the handler reads the code from the store by link
            batch = batch.model_copy(update={"program": batch.program.model_copy(update={"code": ""})})
            extra["source_link"] = source_link
        return {"v": EVENT_VERSION, "batch": batch.model_dump(mode="json", exclude_defaults=True),
                "store": desc(self._s3_in, self.config.store_bucket, self.config.store_prefix),
                "transient": desc(self._s3_out or self._s3_in), "artifact": artifact,
                "spill_output_over": self.config.spill_output_over_bytes, **extra}

    async def _invoke(self, batch: Batch, artifact: str, source_link: str | None = None) -> BatchResult | str:
        """Invoke once (with throttling retries). A str return is why every run is IE."""
        payload = json.dumps(self._event(batch, artifact, source_link), separators=(",", ":")).encode()
        if len(payload) > self.config.max_event_bytes:
            return (f"lambda event of {len(payload)} bytes exceeds max_event_bytes "
                    f"({self.config.max_event_bytes}); is the program source that large?")
        raw = await self._invoke_with_retries(payload)
        if isinstance(raw, str):
            return raw
        result = self._parse(raw, batch)
        if isinstance(result, BatchResult) and not (batch.output_to_store and self._s3_out is not None):
            try:  # big outputs came back by link although the caller wants bytes: fetch them
                result.runs = await asyncio.to_thread(self._fetch_spilled, result.runs)
            except Exception as e:
                return f"could not fetch a spilled output from the S3 store: {e}"
        if isinstance(result, BatchResult) and batch.output_to_store and self._s3_out is None:
            result.runs = [await batching._store_output(r, self.output_store)
                           if r.stdout is not None and r.status != Status.IE else r for r in result.runs]
        return result

    def _fetch_spilled(self, runs: list[RunResult]) -> list[RunResult]:
        spill = self._s3_out or self._s3_in
        return [r.model_copy(update={"stdout": spill.get(r.stdout_link), "stdout_link": None})
                if r.stdout_link and spill is not None else r for r in runs]

    async def _invoke_with_retries(self, payload: bytes) -> dict | str:
        from botocore.exceptions import BotoCoreError, ClientError
        c = self.config
        for attempt in range(c.throttle_retries + 1):
            try:
                self.invokes += 1
                resp = await asyncio.to_thread(self._client.invoke, FunctionName=c.function_name,
                                               InvocationType="RequestResponse", Payload=payload)
                body = await asyncio.to_thread(resp["Payload"].read)
                return {"status": resp.get("StatusCode"), "error": resp.get("FunctionError"), "body": body}
            except ClientError as e:
                code = e.response.get("Error", {}).get("Code", "")
                http = e.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
                if code == "RequestEntityTooLargeException" or http == 413:
                    return f"lambda refused the request as too large (413, {len(payload)} bytes)"
                if code in _RETRY_CODES or http == 429 or (http or 0) >= 500:
                    self.throttled += code in _THROTTLE_CODES or http == 429
                    if attempt < c.throttle_retries:
                        delay = random.uniform(0, min(c.backoff_max_s, c.backoff_base_s * 2 ** attempt))
                        log.info("lambda %s (attempt %d); retrying in %.2f s", code or http, attempt + 1, delay)
                        await asyncio.sleep(delay)
                        continue
                    return f"lambda still {code or http} after {attempt + 1} attempts"
                return f"lambda invoke failed: {code or http}: {e}"
            except BotoCoreError as e:  # connection refused, read timeout (function hung)...
                return f"lambda invoke failed: {type(e).__name__}: {e}"
        return "unreachable"

    def _parse(self, raw: dict, batch: Batch) -> BatchResult | str:
        body: bytes = raw["body"] or b""
        if raw["error"]:
            try:
                err = json.loads(body)
                detail = f"{err.get('errorType', '?')}: {err.get('errorMessage', '')}"
            except (ValueError, AttributeError):
                detail = body[:300].decode(errors="replace")
            return f"lambda function error ({raw['error']}): {detail}"
        try:
            reply = json.loads(body)
            if not isinstance(reply, dict) or reply.get("v") != EVENT_VERSION:
                raise ValueError(f"expected an object with v={EVENT_VERSION}")
            if "error" in reply:
                return f"lambda handler refused the batch: {reply['error']}"
            result = BatchResult.model_validate(reply["result"])
        except (ValueError, KeyError, TypeError) as e:
            return f"lambda returned a malformed payload: {str(e)[:300]}"
        ids = [r.id for r in batch.runs]
        if [r.id for r in result.runs] != ids:
            return f"lambda returned results for runs {[r.id for r in result.runs][:5]}, expected {ids[:5]}"
        return result.model_copy(update={"backend": self.name})


def _is_s3(store) -> bool:
    return store is not None and isinstance(getattr(store, "bucket", None), str)


def _all_ie(batch: Batch, why: str, comp: CompileResult | None = None) -> BatchResult:
    if comp is None and isinstance(batch.program, Source):
        comp = CompileResult(status=Status.IE, log=why)
    return BatchResult(compile=comp, backend="lambda",
                       runs=[RunResult(id=r.id, status=Status.IE, message=why) for r in batch.runs])
