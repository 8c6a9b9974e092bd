"""The verifier's core: validated requests in, responses out; no HTTP here.

The aiohttp app (verifier.app) and the embedded client (VerifierClient.embedded) both call
this class, so the RL loop in-process gets exactly the service's behaviour: admission
control, deadlines, IE semantics and the same errors (``verifier.errors``).

Components (each knows nothing of this class): problem store (manifests), blob cache
(answers), compile cache, executor (the sandbox seam), per-kind judges, admission, metrics.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time

from problem_store.blobs.base import BlobStore, StoreError
from problem_store.manifest import FunctionProblem, LINK_RE, MathProblem, StdioProblem
from sandboxes.backends.base import SandboxBackend
from sandboxes.types import Blob, RunSpec, Status
from verifier.admission import Admission
from verifier.checkers.builtin import check_builtin
from verifier.checkers.custom import CheckJob
from verifier.config import VerifierConfig
from verifier.errors import (DeadlineExceeded, InvalidRequest, RequestError, TooLarge, UnknownProblem,
                             UnsupportedLanguage)
from verifier.judging.blob_cache import BlobCache
from verifier.judging.compile_cache import CompileCache
from verifier.judging.execution import Executor
from verifier.judging.function import FunctionJudge
from verifier.judging.judge import Judge
from verifier.judging.math import judge_math
from verifier.judging.stdio import StdioJudge, run_custom_checker, run_limits
from verifier.metrics import Metrics
from verifier.models import (BatchVerifyRequest, BatchVerifyResponse, CheckRequest, CheckResponse,
                             CheckResult, CompileInfo, ExecuteRequest, ExecuteResponse, ExecuteRun,
                             MathVerifyRequest, MathVerifyResponse, ProblemDetail, ProblemList,
                             ProblemSummary, Verdict, VerifyRequest, VerifyResponse)

log = logging.getLogger("verifier.service")


def submission_languages() -> list[str]:
    """Languages a submission may use: the sandbox's table minus raw binaries."""
    try:
        from sandboxes.languages import LANGUAGES
        return sorted(n for n in LANGUAGES if n != "binary")
    except ImportError:  # pragma: no cover - the sandboxes package always ships it
        return ["c", "cpp", "python"]


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
        self.languages = submission_languages()
        self.admission = Admission(config.max_inflight, config.queue_size, config.retry_after_s)
        self.metrics = Metrics(self.admission)
        self.compile_cache = CompileCache(config.compile_cache_entries)
        self.blob_cache = BlobCache(blobs)
        self.executor = Executor(backend, self.compile_cache, self.metrics)
        self.judge = Judge(StdioJudge(self.executor, self.blob_cache, self.transient),
                           FunctionJudge(self.executor), config.math_timeout_s)
        self.started = False
        self.self_test_ok: bool | None = None
        self.self_test_message = ""

    # -- life cycle -----------------------------------------------------------------
    async def start(self) -> None:
        await self.backend.start()
        self.started = True
        if self.config.self_test:
            await self.run_self_test()

    async def close(self) -> None:
        self.started = False
        await self.backend.close()
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
            await asyncio.wait_for(asyncio.to_thread(
                lambda: next(iter(self.blobs.list_objects("problems/")), None)), timeout=5.0)
            detail["store"] = "ok"
            store_ok = True
        except Exception as exc:  # noqa: BLE001 - readiness reports, never raises
            detail["store"] = f"unreachable: {exc!r}"[:300]
            store_ok = False
        ok = store_ok and self.started and self.self_test_ok is not False
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
        try:
            return await asyncio.to_thread(self.problems.get, problem_id)
        except KeyError:
            raise UnknownProblem(f"unknown problem: {problem_id!r}") from None

    def _check_code(self, code: str, where: str = "code") -> None:
        try:
            size = len(code.encode("utf-8"))
        except UnicodeEncodeError as exc:
            raise InvalidRequest(f"{where}: not valid Unicode text (lone surrogate at "
                                 f"character {exc.start})") from None
        if size > self.config.max_code_bytes:
            raise TooLarge(f"{where} is {size} bytes, over the limit of {self.config.max_code_bytes}")

    async def _prepare(self, req: VerifyRequest, where: str = ""):
        """Validate against the problem before taking a place in line; return (problem, tests)."""
        self._check_code(req.code, f"{where}code")
        problem = await self._load(req.problem_id)
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
        return resp

    async def verify(self, req: VerifyRequest) -> VerifyResponse:
        problem, tests = await self._prepare(req)
        with self._reserve(1) as ticket:
            async def run():
                async with ticket.slot():
                    return await self._judge_one(problem, tests, req)
            return await self._deadline(run())

    async def verify_batch(self, req: BatchVerifyRequest) -> BatchVerifyResponse:
        n = len(req.submissions)
        if n > self.config.max_batch_submissions:
            raise TooLarge(f"submissions: {n} in one batch, over the limit of "
                           f"{self.config.max_batch_submissions}")
        prepared = [await self._prepare(s, f"submissions[{i}].") for i, s in enumerate(req.submissions)]
        with self._reserve(n) as ticket:
            async def one(i: int) -> VerifyResponse:
                async with ticket.slot():
                    problem, tests = prepared[i]
                    return await self._judge_one(problem, tests, req.submissions[i])

            async def run():
                return await asyncio.gather(*(one(i) for i in range(n)))
            results = await self._deadline(run())
        return BatchVerifyResponse(results=list(results))

    def _reserve(self, units: int):
        try:
            return self.admission.reserve(units)
        except RequestError:
            self.metrics.rejected.inc()
            raise

    # -- the two Oubliette phases ---------------------------------------------------
    async def execute(self, req: ExecuteRequest) -> ExecuteResponse:
        self._check_code(req.code)
        if req.language not in self.languages:
            raise UnsupportedLanguage(f"language: unsupported language {req.language!r}; "
                                      f"supported: {', '.join(self.languages)}")
        for i, ref in enumerate(req.inputs):
            if not LINK_RE.match(ref.input):
                raise InvalidRequest(f"inputs[{i}].input: not a blob link: {ref.input!r}")
        names = [r.name for r in req.inputs]
        if len(set(names)) != len(names):
            raise InvalidRequest("inputs: names must be unique")
        limits = run_limits(req.limits)
        specs = [RunSpec(id=r.name, stdin=Blob(link=r.input), limits=limits) for r in req.inputs]
        with self._reserve(1) as ticket:
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
                key = await asyncio.to_thread(self.transient.put, data)
            runs.append(ExecuteRun(
                name=r.id, status="SKIPPED" if r.skipped else r.status.value, output=key,
                output_bytes=r.output_bytes, exit_code=r.exit_code, time_s=round(r.cpu_time_s, 4),
                wall_time_s=round(r.wall_time_s, 4), memory_kb=r.memory_kb, message=r.message))
        return ExecuteResponse(compile=out.compile, runs=runs)

    async def _fetch_ref(self, ref: str, where: str) -> bytes:
        try:
            if ref.startswith("transient://"):
                return await asyncio.to_thread(self.transient.get, ref)
            if LINK_RE.match(ref):
                return await self.blob_cache.get(ref)
        except ValueError as exc:
            raise InvalidRequest(f"{where}: {exc}") from None
        except KeyError:
            raise UnknownProblem(f"{where}: {ref!r} not found (or expired)") from None
        raise InvalidRequest(f"{where}: expected a blob:// link or transient:// key, got {ref!r}")

    async def check(self, req: CheckRequest) -> CheckResponse:
        outputs = [await self._fetch_ref(it.output, f"items[{i}].output")
                   for i, it in enumerate(req.items)]
        for i, it in enumerate(req.items):
            for field in ("input", "answer"):
                ref = getattr(it, field)
                if ref is not None and not LINK_RE.match(ref):
                    raise InvalidRequest(f"items[{i}].{field}: not a blob link: {ref!r}")
        if req.checker.type == "builtin":
            results = []
            for i, (it, out) in enumerate(zip(req.items, outputs)):
                if it.answer is None:
                    raise InvalidRequest(f"items[{i}].answer: built-in checkers need an answer")
                answer = await self._fetch_ref(it.answer, f"items[{i}].answer")
                oc = check_builtin(req.checker, out, answer)
                results.append(CheckResult(name=it.name, verdict=Verdict(oc.verdict), message=oc.message))
            return CheckResponse(results=results)
        if not LINK_RE.match(req.checker.binary):
            raise InvalidRequest(f"checker.binary: not a blob link: {req.checker.binary!r}")
        jobs = [CheckJob(it.name, Blob(link=it.input), Blob(data=out),
                         Blob(link=it.answer) if it.answer else None)
                for it, out in zip(req.items, outputs)]
        with self._reserve(1) as ticket:
            async def run():
                async with ticket.slot():
                    return await run_custom_checker(self.backend, req.checker.binary, jobs)
            outcomes = await self._deadline(run())
        return CheckResponse(results=[CheckResult(name=j.name, verdict=Verdict(o.verdict),
                                                  message=o.message, points=o.points)
                                      for j, o in zip(jobs, outcomes)])

    async def math_verify(self, req: MathVerifyRequest) -> MathVerifyResponse:
        with self._reserve(1) as ticket:
            async def run():
                async with ticket.slot():
                    return await judge_math(req.gold, req.prediction, self.config.math_timeout_s,
                                            req.extract)
            return await self._deadline(run())

    # -- problems -------------------------------------------------------------------
    async def list_problems(self) -> ProblemList:
        try:
            items = await asyncio.to_thread(self.problems.list)
        except StoreError as exc:
            raise RuntimeError(f"problem store failed: {exc}") from exc
        return ProblemList(problems=[ProblemSummary(id=p.id, kind=p.kind, title=p.title,
                                                    difficulty=p.difficulty, split=p.split,
                                                    tags=list(p.tags)) for p in items])

    async def get_problem(self, problem_id: str) -> ProblemDetail:
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
