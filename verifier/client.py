"""Python async client: ``VerifierClient(base_url, token)`` over HTTP, or ``.embedded(...)``.

Both modes send the same pydantic request models and return the same response models; the
embedded mode calls ``VerifierService`` (the code behind the HTTP app) in this process, so the
RL loop gets identical verdicts, admission control and errors without a socket.

Every call goes through the route table (verifier.routes): the HTTP transport takes the
method and path from it, the embedded transport the service coroutine, so the client has a
method for every /v1 endpoint (``verify``, ``verify_batch``, ``execute``, ``check``,
``math_verify``, ``problems``, ``problem``) and no endpoint the server lacks.

Retries: 429 and 503 (queue full, store unavailable, not ready) are retried, honouring
Retry-After, else exponential backoff with jitter, as are connection failures (refused,
reset, server disconnected: verification has no side effects, so it is safe to resend), up
to ``max_retries`` attempts and ``retry_budget_s`` seconds in all. Other 4xx raise
``VerifierError`` at once: resending a bad request cannot help.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any, Iterable

from pydantic import BaseModel

from verifier.models import (BatchVerifyRequest, CheckRequest, CheckResponse, ExecuteRequest,
                             ExecuteResponse, MathVerifyRequest, MathVerifyResponse, ProblemDetail,
                             ProblemSummary, VerifyOptions, VerifyRequest, VerifyResponse)
from verifier.routes import BY_CLIENT, Route, path_of

RETRY_STATUSES = (429, 503)


class VerifierError(Exception):
    """The service refused or failed a request (status, machine code, message)."""

    def __init__(self, status: int, code: str, message: str, retry_after_s: float | None = None):
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message, self.retry_after_s = status, code, message, retry_after_s


def _request(problem_id_or_req, language=None, code=None, **options) -> VerifyRequest:
    if isinstance(problem_id_or_req, VerifyRequest):
        return problem_id_or_req
    if isinstance(problem_id_or_req, dict):
        return VerifyRequest.model_validate(problem_id_or_req)
    return VerifyRequest(problem_id=problem_id_or_req, language=language, code=code,
                         options=VerifyOptions(**options))


class _HttpTransport:
    def __init__(self, base_url: str, token: str | None, timeout_s: float,
                 client_id: str | None = None):
        import aiohttp

        self.base_url = base_url.rstrip("/")
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}
        if client_id:  # the identity fair admission shares slots by (after the token)
            from verifier.clients import CLIENT_ID_HEADER, check_client_id
            self.headers[CLIENT_ID_HEADER] = check_client_id(client_id)
        self.timeout = aiohttp.ClientTimeout(total=timeout_s)
        self.session = None

    async def call(self, route: Route, body: BaseModel | None, params: dict[str, str]) -> Any:
        import aiohttp

        method, path = route.method, path_of(route, params)
        if self.session is None:
            self.session = aiohttp.ClientSession(
                timeout=self.timeout, headers=self.headers,
                connector=aiohttp.TCPConnector(limit=256))
        data = body.model_dump_json().encode() if body is not None else None
        async with self.session.request(method, self.base_url + path, data=data, headers={
                "Content-Type": "application/json"} if data is not None else None) as resp:
            text = await resp.text()
            if resp.status >= 400:
                try:
                    err = __import__("json").loads(text)
                    code, msg = err.get("error", "error"), err.get("message", text)
                except ValueError:
                    code, msg = "error", text[:500]
                ra = resp.headers.get("Retry-After")
                raise VerifierError(resp.status, code, msg,
                                    float(ra) if ra and ra.replace(".", "", 1).isdigit() else None)
            return text

    async def close(self) -> None:
        if self.session is not None:
            await self.session.close()
            self.session = None


class _EmbeddedTransport:
    """Routes the client's calls straight to a VerifierService in this process."""

    def __init__(self, service, client_id: str = "embedded"):
        from verifier.clients import check_client_id

        self.service = service
        self.started = False
        # The first calls often come together (an RL step's judges): one starts the service,
        # the others wait for it. Each starting it too started its backend twice.
        self._start_lock = asyncio.Lock()
        self.identity = "id:" + check_client_id(client_id)  # as over HTTP with X-Client-Id

    async def call(self, route: Route, body: BaseModel | None, params: dict[str, str]) -> Any:
        from verifier.clients import client_id_var
        from verifier.errors import RequestError

        s = self.service
        if not self.started:
            async with self._start_lock:
                if not self.started:
                    await s.start()
                    self.started = True
        if route.service is None:
            raise ValueError(f"embedded client: {route.method} {route.path} has no service call")
        args = ([body] if route.request is not None else []) + [params[p] for p in route.path_params]
        ident = client_id_var.set(self.identity)
        try:
            return await getattr(s, route.service)(*args)
        except RequestError as exc:
            raise VerifierError(exc.status, exc.code, exc.message,
                                getattr(exc, "retry_after_s", None)) from None
        finally:
            client_id_var.reset(ident)

    async def close(self) -> None:
        if self.started:
            await self.service.close()
            self.started = False


def _chunks(reqs: list, count: int, max_bytes: int) -> list[list]:
    """Consecutive runs of ``reqs``, each at most ``count`` long and, unless a single one is
    bigger, at most ``max_bytes`` of batch JSON (items, commas and the envelope counted)."""
    envelope = len('{"submissions":[]}')
    chunks: list[list] = []
    size = 0
    for r in reqs:
        n = len(r.model_dump_json().encode()) + 1
        if chunks and len(chunks[-1]) < count and size + n + envelope <= max_bytes:
            chunks[-1].append(r)
            size += n
        else:
            chunks.append([r])
            size = n
    return chunks


class VerifierClient:
    def __init__(self, base_url: str, token: str | None = None, *, max_retries: int = 8,
                 backoff_s: float = 0.25, max_backoff_s: float = 10.0, timeout_s: float = 600.0,
                 batch_size: int = 64, retry_budget_s: float = 120.0, client_id: str | None = None,
                 max_batch_bytes: int = 8 * 1024 * 1024, _transport=None):
        self._t = _transport or _HttpTransport(base_url, token, timeout_s, client_id)
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.retry_budget_s = retry_budget_s
        self.batch_size = batch_size
        # A chunk's JSON body stays under this (the service's default body limit is 16 MiB):
        # long completions in a big group must not turn into one 413 for all of them.
        self.max_batch_bytes = max_batch_bytes
        self.retries = 0  # how many times a call was retried (for tests and logs)

    @classmethod
    def embedded(cls, store_uri: str | None = None, backend: str = "local", *,
                 backend_options: dict | None = None, client_id: str = "embedded",
                 **config: Any) -> "VerifierClient":
        """A client running the service's code in this process (no HTTP). Use ``async with``.

        ``client_id``: this caller's identity for fair admission (``id:<client_id>``)."""
        from verifier.config import VerifierConfig
        from verifier.wiring import build_service

        cfg = VerifierConfig(store_uri=store_uri, backend=backend,
                             backend_options=backend_options or {}, **config)
        return cls("embedded://", _transport=_EmbeddedTransport(build_service(cfg), client_id))

    @classmethod
    def for_service(cls, service, client_id: str = "embedded", **kw) -> "VerifierClient":
        """Embedded client over an already built service (tests, custom wiring)."""
        return cls("embedded://", _transport=_EmbeddedTransport(service, client_id), **kw)

    async def __aenter__(self) -> "VerifierClient":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    async def close(self) -> None:
        await self._t.close()

    async def _call(self, client_method: str, body: BaseModel | None = None, **params: str):
        """Call the route whose client method is ``client_method``, retrying what may succeed."""
        import aiohttp

        route = BY_CLIENT[client_method]
        deadline = time.monotonic() + self.retry_budget_s
        attempt = 0
        while True:
            try:
                out = await self._t.call(route, body, params)
                return out if isinstance(out, route.response) else route.response.model_validate_json(out)
            except VerifierError as exc:
                if exc.status not in RETRY_STATUSES or attempt >= self.max_retries:
                    raise
                delay = exc.retry_after_s if exc.retry_after_s is not None else self._backoff(attempt)
                failure: Exception = exc
            except (aiohttp.ClientConnectionError, ConnectionError) as exc:
                if attempt >= self.max_retries:
                    raise
                delay, failure = self._backoff(attempt), exc
            delay = min(delay, self.max_backoff_s) * random.uniform(0.8, 1.2)
            if time.monotonic() + delay > deadline:
                raise failure  # the retry budget is spent: report the last failure
            attempt += 1
            self.retries += 1
            await asyncio.sleep(delay)

    def _backoff(self, attempt: int) -> float:
        return min(self.max_backoff_s, self.backoff_s * (2 ** attempt))

    # -- API --------------------------------------------------------------------------
    async def verify(self, problem_id: str | VerifyRequest | dict, language: str | None = None,
                     code: str | None = None, **options: Any) -> VerifyResponse:
        return await self._call("verify", _request(problem_id, language, code, **options))

    async def verify_batch(self, submissions: Iterable[VerifyRequest | dict]) -> list[VerifyResponse]:
        """Judge many submissions; sent in chunks of at most ``batch_size`` submissions and
        ``max_batch_bytes`` of JSON (one submission larger than that goes alone, and the
        service judges it or says why not), chunks in parallel, results in input order."""
        reqs = [_request(s) for s in submissions]
        chunks = _chunks(reqs, self.batch_size, self.max_batch_bytes)
        outs = await asyncio.gather(*(
            self._call("verify_batch", BatchVerifyRequest(submissions=c)) for c in chunks))
        return [r for out in outs for r in out.results]

    async def execute(self, request: ExecuteRequest | dict) -> ExecuteResponse:
        """Phase one of the two-phase API: run code on inputs by link (outputs stay transient)."""
        if isinstance(request, dict):
            request = ExecuteRequest.model_validate(request)
        return await self._call("execute", request)

    async def check(self, request: CheckRequest | dict) -> CheckResponse:
        """Phase two: check outputs (transient keys or links) with a built-in or custom checker."""
        if isinstance(request, dict):
            request = CheckRequest.model_validate(request)
        return await self._call("check", request)

    async def math_verify(self, gold: str, prediction: str, extract: bool = True,
                          require_box: bool = False,
                          timeout_s: float | None = None) -> MathVerifyResponse:
        return await self._call("math_verify",
                                MathVerifyRequest(gold=gold, prediction=prediction, extract=extract,
                                                  require_box=require_box, timeout_s=timeout_s))

    async def problems(self) -> list[ProblemSummary]:
        return (await self._call("problems")).problems

    async def problem(self, problem_id: str) -> ProblemDetail:
        return await self._call("problem", problem_id=problem_id)
