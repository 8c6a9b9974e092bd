"""The verifier's core: validated requests in, responses out; no HTTP here.

The aiohttp app (verifier.app) and the embedded client (VerifierClient.embedded) both call
this class, so the RL loop in-process gets exactly the service's behaviour: admission
control, deadlines, IE semantics and the same errors (``verifier.errors``).

Components (each knows nothing of this class): problem store (manifests), blob cache
(answers), compile cache, executor (the sandbox seam), per-kind judges, admission, metrics.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import sys
import time

from problem_store.blobs.base import BlobStore
from problem_store.manifest import PROBLEM_ID_RE, FunctionProblem, MathProblem, StdioProblem
from problem_store.transient import parse_transient_key
from sandboxes.backends.base import SandboxBackend
from sandboxes.types import Blob, RunSpec, Status
from verifier.ceilings import check_check, execute_limits, is_link, unique
from verifier.checkers.custom import CheckJob
from verifier.config import VerifierConfig
from verifier.errors import (CodeTooLarge, DeadlineExceeded, InvalidRequest, RequestError, TooLarge, UnknownProblem,
                             UnsupportedLanguage)
from verifier.judging.blob_cache import BlobCache
from verifier.judging.compile_cache import CompileCache
from verifier.judging.execution import Executor
from verifier.judging.function import FunctionJudge
from verifier.judging.judge import Judge
from verifier.judging.math import MATH_SLOT, judge_math
from verifier.judging.stdio import StdioJudge, check_builtin_sized, run_custom_checker, run_limits
from verifier.judging.verdicts import fill_points
from verifier.metrics import Metrics
from verifier.redact import redact_check, redact_verify
from verifier.store_access import require_links, store_call
from verifier.transient_quota import TransientQuota
from verifier.models import (BatchVerifyRequest, BatchVerifyResponse, CheckRequest, CheckResponse,
                             CheckResult, CompileInfo, ExecuteRequest, ExecuteResponse, ExecuteRun,
                             MathVerifyRequest, MathVerifyResponse, ProblemDetail, ProblemList,
                             ProblemSummary, TestVerdict, Verdict, VerifyRequest, VerifyResponse)
from verifier.work_classes import MetricsBlock, WorkClasses

log = logging.getLogger("verifier.service")


def submission_languages() -> list[str]:
    """Languages a submission may use: the sandbox's table minus raw binaries."""
    try:
        from sandboxes.languages import LANGUAGES
        return sorted(n for n in LANGUAGES if n != "binary")
    except ImportError:  # pragma: no cover - the sandboxes package always ships it
        return ["c", "cpp", "python"]


def _work_class(problem) -> str:
    return "math" if isinstance(problem, MathProblem) else "code"


class VerifierService:
    def __init__(self, config: VerifierConfig, backend: SandboxBackend, blobs: BlobStore,
                 problems=None, transient=None):
        from problem_store.problems import ProblemStore
        from problem_store.transient import TransientStore

        self.config = config
        self.backend = backend
        self.blobs = blobs
        self.problems = problems or ProblemStore(blobs, cache_size=max(1, config.manifest_cache_entries))
        self.transient = transient or TransientStore(blobs, ttl_s=config.transient_ttl_s)
        self.transient_quota = TransientQuota(config.transient_max_bytes)
        self.languages = submission_languages()
        # Work classes: fair admission for code and math, own bounded threads for math, store
        # and in-process checks (verifier/work_classes.py); ``admission`` is the code class.
        self.work = WorkClasses(config.work_classes, max_inflight=config.max_inflight,
                                queue_size=config.queue_size, retry_after_s=config.retry_after_s,
                                request_deadline_s=config.request_deadline_s)
        self.admission = self.work.code
        self.metrics = Metrics(self.admission)
        self.metrics.extra_gauges.append(MetricsBlock(self.work))
        self.compile_cache = CompileCache(config.compile_cache_entries)
        self.blob_cache = BlobCache(blobs, run=self.work.store.run)
        self.executor = Executor(backend, self.compile_cache, self.metrics)
        self.judge = Judge(StdioJudge(self.executor, self.blob_cache, self.transient,
                                      store_run=self.work.store.run,
                                      check_run=self.work.run_check),
                           FunctionJudge(self.executor), config.math_timeout_s,
                           math_run=self.work.math_run, math_fast_run=self.work.request.run)
        self.started = False
        self._start_lock: asyncio.Lock | None = None
        self.self_test_ok: bool | None = None
        self.self_test_message = ""
        self._gc_task: asyncio.Task | None = None

    # -- life cycle -----------------------------------------------------------------
    async def start(self) -> None:
        """Start once: calls that come together wait for the first (one backend, one pool)."""
        if self._start_lock is None:
            self._start_lock = asyncio.Lock()
        async with self._start_lock:
            if not self.started:
                await self._start()

    async def _start(self) -> None:
        self.work.start_math_pool()
        await self.backend.start()
        self.started = True
        if self.config.transient_gc_interval_s > 0 and self._gc_task is None:
            self._gc_task = asyncio.create_task(self._collect_transient())
        if self.config.self_test:
            await self.run_self_test()

    async def _collect_transient(self) -> None:
        """Delete expired /v1/execute outputs now and every transient_gc_interval_s."""
        while True:
            try:
                removed = await self.work.store.run(self.transient.gc)
                if removed:
                    log.info("transient outputs collected", extra={"fields": {"removed": removed}})
            except Exception as exc:  # noqa: BLE001 - a store hiccup must not end the loop
                log.warning("transient collection failed: %r", exc)
            await asyncio.sleep(self.config.transient_gc_interval_s)

    async def close(self) -> None:
        self.started = False
        if self._gc_task is not None:
            self._gc_task.cancel()
            await asyncio.gather(self._gc_task, return_exceptions=True)
            self._gc_task = None
        await self.backend.close()
        self.work.shutdown()
        math = sys.modules.get("verifier.math")
        if math is not None:  # its sympy worker processes must not outlive the service
            await asyncio.to_thread(math.shutdown)

    async def run_self_test(self) -> bool:
        """A+B in Python through the real executor path; readiness depends on it."""
        spec = RunSpec(id="selftest", stdin=Blob(data=b"2 40\n"))
        out = await self.executor.run("python", "a, b = map(int, input().split())\nprint(a + b)\n",
                                      [spec])
        ok = (out.compile.status in ("OK", "CACHED") and len(out.runs) == 1
              and out.runs[0].status == Status.OK and (out.runs[0].stdout or b"").strip() == b"42")
        self.self_test_ok = ok
        self.self_test_message = "ok" if ok else (
            out.compile.log or (out.runs[0].message if out.runs else "no result"))[:300]
        if not ok:
            log.error("sandbox self-test failed: %s", self.self_test_message)
        return ok

    async def readiness(self) -> tuple[bool, dict]:
        detail: dict = {"backend": getattr(self.backend, "name", "?"), "backend_started": self.started,
                        # How runs are accounted: cgroup-v1/-v2 (whole tree) or rlimit (per process).
                        "accounting": getattr(self.backend, "accounting", "rlimit"),
                        "self_test": self.self_test_message or "not run"}
        try:
            if self.work.store.saturated:  # do not queue a probe behind stuck calls
                raise RuntimeError("store work class saturated")
            await asyncio.wait_for(self.work.store.run(
                lambda: next(iter(self.blobs.list_objects("problems/")), None)), timeout=5.0)
            detail["store"] = "ok"
            store_ok = True
        except Exception as exc:  # noqa: BLE001 - readiness reports, never raises
            detail["store"] = f"unreachable: {exc!r}"[:300]
            store_ok = False
        detail["work_classes"] = self.work.report()
        saturated = self.work.blocking()
        if saturated:
            detail["saturated"] = saturated
        ok = store_ok and not saturated and self.started and self.self_test_ok is not False
        return ok, detail

    # -- verification ---------------------------------------------------------------
    async def _deadline(self, coro):
        try:
            async with asyncio.timeout(self.config.request_deadline_s):
                return await coro
        except TimeoutError:
            raise DeadlineExceeded(
                f"request took longer than its deadline of {self.config.request_deadline_s:g}s") from None

    async def _load(self, problem_id: str):
        return await store_call(self.problems.get, problem_id, what="problem_id",
                                not_found=UnknownProblem(f"unknown problem: {problem_id!r}"),
                                client_value=False, run=self.work.store.run)

    def _check_code(self, code: str, where: str = "code") -> None:
        try:
            size = len(code.encode("utf-8"))
        except UnicodeEncodeError as exc:
            raise InvalidRequest(f"{where}: not valid Unicode text (lone surrogate at "
                                 f"character {exc.start})") from None
        if size > self.config.max_code_bytes:
            raise CodeTooLarge(where, size, self.config.max_code_bytes)

    async def _prepare(self, req: VerifyRequest, where: str = ""):
        """Validate against the problem before taking a place in line; return (problem, tests)."""
        self._check_code(req.code, f"{where}code")
        problem = await self._load(req.problem_id)
        if isinstance(problem, FunctionProblem) and req.language is None:
            req.language = problem.language  # a function problem has one language
        if isinstance(problem, StdioProblem) and req.language is None:
            raise InvalidRequest(f"{where}language: required for code problems; "
                                 f"supported: {', '.join(self.languages)}")
        if isinstance(problem, StdioProblem) and req.language not in self.languages:
            raise UnsupportedLanguage(f"{where}language: unsupported language {req.language!r}; "
                                      f"supported: {', '.join(self.languages)}")
        if isinstance(problem, FunctionProblem) and req.language != problem.language:
            raise UnsupportedLanguage(f"{where}language: problem {problem.id!r} is a "
                                      f"{problem.language} function problem, got {req.language!r}")
        tests: list = []
        if isinstance(problem, (StdioProblem, FunctionProblem)):
            tests = list(problem.tests)
            wanted = req.options.tests
            if wanted is not None:
                names = {t.name for t in tests}
                unknown = [n for n in wanted if n not in names]
                if unknown:
                    raise InvalidRequest(f"{where}options.tests: unknown test name(s) {unknown[:10]} "
                                         f"for problem {problem.id!r}")
                if not wanted:
                    raise InvalidRequest(f"{where}options.tests: empty list (omit it for all tests)")
                unique(wanted, f"{where}options.tests")
                keep = set(wanted)
                tests = [t for t in tests if t.name in keep]
        elif req.options.tests:
            raise InvalidRequest(f"{where}options.tests: math problems have no named tests")
        return problem, tests

    async def _judge_one(self, problem, tests, req: VerifyRequest) -> VerifyResponse:
        t0 = time.perf_counter()
        resp = await self.judge.judge(problem, req.language, req.code, tests, req.options)
        self.metrics.judge_latency.observe(time.perf_counter() - t0, problem.kind)
        self.metrics.verdicts.labels_inc(resp.verdict.value, problem.kind)
        for t in resp.tests:
            self.metrics.test_verdicts.labels_inc(t.verdict.value)
        return redact_verify(resp, problem, self.config.feedback, req.code)

    async def verify(self, req: VerifyRequest) -> VerifyResponse:
        problem, tests = await self._prepare(req)
        work_class = _work_class(problem)
        with self._reserve({work_class: 1}) as ticket:
            async def run():
                async with self._slot(ticket, work_class):
                    return await self._judge_one(problem, tests, req)
            return await self._deadline(run())

    async def verify_batch(self, req: BatchVerifyRequest) -> BatchVerifyResponse:
        n = len(req.submissions)
        if n > self.config.max_batch_submissions:
            raise TooLarge(f"submissions: {n} in one batch, over the limit of "
                           f"{self.config.max_batch_submissions}")
        results: list[VerifyResponse | None] = [None] * n
        prepared = {}
        for i, s in enumerate(req.submissions):
            try:
                prepared[i] = await self._prepare(s, f"submissions[{i}].")
            except CodeTooLarge as exc:
                # The submission's own doing (a policy that rambles past the limit): judged
                # as a failure of its own, the rest of the batch goes on (was 413 for all).
                results[i] = await self._too_large(s, exc)
        if not prepared:
            return BatchVerifyResponse(results=results)
        classes = {i: _work_class(p) for i, (p, _) in prepared.items()}
        units = list(classes.values())
        with self._reserve({c: units.count(c) for c in set(units)}) as ticket:
            async def one(i: int) -> VerifyResponse:
                async with self._slot(ticket, classes[i]):
                    problem, tests = prepared[i]
                    return await self._judge_one(problem, tests, req.submissions[i])

            # Each submission stands alone: one that fails inside (a bug of ours it
            # triggered) or is still running at the deadline is IE by itself, and the
            # others keep their verdicts. (All of them were lost before: an RL client then
            # dropped a whole group for one hostile completion.)
            tasks = {i: asyncio.ensure_future(one(i)) for i in prepared}
            try:
                _done, late = await asyncio.wait(tasks.values(), timeout=self.config.request_deadline_s)
            finally:
                for t in tasks.values():
                    t.cancel()  # a no-op for finished ones; the late ones give back their slots
                await asyncio.gather(*tasks.values(), return_exceptions=True)
            for i, t in tasks.items():
                results[i] = self._batch_item(prepared[i][0], t, t in late)
        return BatchVerifyResponse(results=results)

    async def _too_large(self, req: VerifyRequest, exc: CodeTooLarge) -> VerifyResponse:
        problem = await self._load(req.problem_id)
        self.metrics.verdicts.labels_inc((Verdict.WA if problem.kind == "math" else Verdict.CE).value,
                                         problem.kind)
        why = f"code is {exc.size} bytes, over the limit of {exc.limit}"
        if problem.kind == "math":
            return VerifyResponse(problem_id=problem.id, kind="math", verdict=Verdict.WA, reward=0.0,
                                  message="too_large: " + why)
        return VerifyResponse(problem_id=problem.id, kind=problem.kind, verdict=Verdict.CE, reward=0.0,
                              compile=CompileInfo(status="CE", log=why), message="source too large")

    def _batch_item(self, problem, task: asyncio.Future, late: bool) -> VerifyResponse:
        if late:
            return self._not_judged(problem, f"not judged within the request's deadline of "
                                             f"{self.config.request_deadline_s:g}s (the other "
                                             "submissions of the batch were)")
        exc = task.exception()
        if exc is None:
            return task.result()
        if isinstance(exc, RequestError) and exc.status < 500:
            raise exc  # the request's fault: as for a single submission
        if not isinstance(exc, RequestError):
            log.error("internal error judging a batch item of problem %r", problem.id,
                      exc_info=(type(exc), exc, exc.__traceback__))
        return self._not_judged(problem, f"internal error: {type(exc).__name__}"
                                         + (f": {exc}" if isinstance(exc, RequestError) else ""))

    def _not_judged(self, problem, message: str) -> VerifyResponse:
        self.metrics.verdicts.labels_inc(Verdict.IE.value, problem.kind)
        return VerifyResponse(problem_id=problem.id, kind=problem.kind, verdict=Verdict.IE, reward=None,
                              message=message)

    def _reserve(self, units: dict[str, int]):
        try:
            return self.work.reserve(units)
        except RequestError:
            self.metrics.rejected.inc()
            raise

    # -- the two Oubliette phases ---------------------------------------------------
    async def execute(self, req: ExecuteRequest) -> ExecuteResponse:
        self._check_code(req.code)
        if req.language not in self.languages:
            raise UnsupportedLanguage(f"language: unsupported language {req.language!r}; "
                                      f"supported: {', '.join(self.languages)}")
        effective = execute_limits(req, self.config)
        names = [r.name for r in req.inputs]
        await require_links(self.blobs, {f"inputs[{i}].input": r.input
                                         for i, r in enumerate(req.inputs)}, run=self.work.store.run)
        limits = run_limits(effective)
        specs = [RunSpec(id=r.name, stdin=Blob(link=r.input), limits=limits) for r in req.inputs]
        with self.transient_quota.reserve(len(specs) * limits.output_bytes) as commit:
            return await self._execute(req, specs, names, commit)

    async def _execute(self, req: ExecuteRequest, specs, names, commit) -> ExecuteResponse:
        with self._reserve({"code": 1}) as ticket:
            async def run():
                async with ticket.slot():
                    return await self.executor.run(req.language, req.code, specs,
                                                   stop_on_failure=req.stop_on_first_failure)
            out = await self._deadline(run())
        runs: list[ExecuteRun] = []
        if out.internal_error or out.compile_failed:
            status = "IE" if out.internal_error else "SKIPPED"
            return ExecuteResponse(compile=out.compile, runs=[
                ExecuteRun(name=n, status=status, message=out.compile.log[:300]) for n in names])
        for r in out.runs:
            key = None
            if r.status == Status.OK and not r.skipped:
                data = r.stdout or b""
                key = await store_call(self.transient.put, data, what="transient output",
                                       run=self.work.store.run)
                commit(len(data), parse_transient_key(key)[0])
            runs.append(ExecuteRun(
                name=r.id, status="SKIPPED" if r.skipped else r.status.value, output=key,
                output_bytes=r.output_bytes, exit_code=r.exit_code, time_s=round(r.cpu_time_s, 4),
                wall_time_s=round(r.wall_time_s, 4), memory_kb=r.memory_kb, message=r.message))
        return ExecuteResponse(compile=out.compile, runs=runs)

    async def _fetch_ref(self, ref: str, where: str, budget: list[int]) -> bytes:
        """Read an output/answer by key or link; ``budget`` = bytes this request may still read."""
        if ref.startswith("transient://"):
            data = await store_call(self.transient.get, ref, what=f"{where} ({ref!r})",
                                    run=self.work.store.run)
        elif is_link(ref):
            data = await store_call(lambda: self.blob_cache.get(ref), what=f"{where} ({ref!r})",
                                    awaitable=True)
        else:
            raise InvalidRequest(f"{where}: expected a blob:// link or transient:// key, got {ref!r}")
        budget[0] -= len(data)
        if budget[0] < 0:
            raise InvalidRequest(f"{where}: the outputs and answers of this request exceed this "
                                 f"service's ceiling of {self.config.max_request_output_bytes} "
                                 "bytes (max_request_output_bytes); split the items")
        return data

    async def check(self, req: CheckRequest) -> CheckResponse:
        check_check(req, self.config)
        builtin = req.checker.type == "builtin"
        for i, it in enumerate(req.items):
            if builtin and it.answer is None:
                raise InvalidRequest(f"items[{i}].answer: built-in checkers need an answer")
        links = {f"items[{i}].{f}": getattr(it, f) for i, it in enumerate(req.items)
                 for f in ("input", "answer") if getattr(it, f) is not None}
        if not builtin:
            links["checker.binary"] = req.checker.binary
        await require_links(self.blobs, links, run=self.work.store.run)
        budget = [self.config.max_request_output_bytes]
        outputs = [await self._fetch_ref(it.output, f"items[{i}].output", budget)
                   for i, it in enumerate(req.items)]
        if builtin:
            results = []
            for i, (it, out) in enumerate(zip(req.items, outputs)):
                answer = await self._fetch_ref(it.answer, f"items[{i}].answer", budget)
                oc = await check_builtin_sized(req.checker, out, answer, self.work.run_check)
                results.append(CheckResult(name=it.name, verdict=Verdict(oc.verdict), message=oc.message))
            return CheckResponse(results=redact_check(results, self.config.feedback))
        jobs = [CheckJob(it.name, Blob(link=it.input), Blob(data=out),
                         Blob(link=it.answer) if it.answer else None)
                for it, out in zip(req.items, outputs)]
        with self._reserve({"code": 1}) as ticket:
            async def run():
                async with ticket.slot():
                    return await run_custom_checker(self.backend, req.checker.binary, jobs)
            outcomes = await self._deadline(run())
        results = []
        for j, o in zip(jobs, outcomes):
            # An item carries no worth: points are judged as for a test worth 1 (fill_points).
            tv = TestVerdict(name=j.name, verdict=Verdict(o.verdict), message=o.message)
            fill_points(tv, None, o.points)
            results.append(CheckResult(name=j.name, verdict=tv.verdict, message=tv.message,
                                       points=o.points))
        return CheckResponse(results=redact_check(results, self.config.feedback))

    async def math_verify(self, req: MathVerifyRequest) -> MathVerifyResponse:
        with self._reserve({"math": 1}) as ticket:
            async def run():
                async with self._slot(ticket, "math"):
                    return await judge_math(req.gold, req.prediction,
                                            req.timeout_s or self.config.math_timeout_s,
                                            req.extract, req.require_box, run=self.work.math_run,
                                            form=req.form, fast_run=self.work.request.run)
            return await self._deadline(run())

    @contextlib.asynccontextmanager
    async def _slot(self, ticket, work_class: str):
        """A judging slot of ``work_class``. Math takes its slot only when an answer needs a
        sympy worker (``verifier.judging.math.MATH_SLOT``): what the judge decides in the
        request threads (most answers) never waits behind slow answers holding every worker."""
        if work_class != "math":
            async with ticket.slot(work_class):
                yield
            return
        token = MATH_SLOT.set(lambda: ticket.slot("math"))
        try:
            yield
        finally:
            MATH_SLOT.reset(token)

    # -- problems -------------------------------------------------------------------
    async def list_problems(self) -> ProblemList:
        found = await store_call(self.problems.listing, what="problem listing", client_value=False,
                                 run=self.work.store.run)
        for b in found.broken:  # one damaged manifest must not hide the others
            log.warning("problem listing skips %s: %s", b.problem_id, b)
        return ProblemList(problems=[ProblemSummary(id=p.id, kind=p.kind, title=p.title,
                                                    difficulty=p.difficulty, split=p.split,
                                                    tags=list(p.tags)) for p in found.problems],
                           broken=found.broken_ids)

    async def get_problem(self, problem_id: str) -> ProblemDetail:
        if not re.fullmatch(PROBLEM_ID_RE, problem_id):
            raise UnknownProblem(f"unknown problem: {problem_id!r} (not a valid problem id)")
        p = await self._load(problem_id)
        d = ProblemDetail(id=p.id, kind=p.kind, title=p.title, difficulty=p.difficulty,
                          split=p.split, tags=list(p.tags), statement=p.statement)
        if isinstance(p, StdioProblem):
            d.limits, d.tests, d.languages = p.limits, [t.name for t in p.tests], self.languages
            d.checker = f"builtin:{p.checker.name}" if p.checker.type == "builtin" else "custom"
        elif isinstance(p, FunctionProblem):
            d.limits, d.tests, d.languages = p.limits, [t.name for t in p.tests], [p.language]
            d.entry_point, d.prompt = p.entry_point, p.prompt
        elif isinstance(p, MathProblem):
            d.question = p.question
        return d
