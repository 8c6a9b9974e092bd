"""A small fake of Lambda's Invoke API over real HTTP on 127.0.0.1 (aiohttp).

moto cannot show throttling or a 413, and costs ~1 s an invoke; this server answers
``POST /2015-03-31/functions/{name}/invocations`` the way Lambda does, from a script:

- ``"throttle"``: HTTP 429, ``x-amzn-ErrorType: TooManyRequestsException`` (boto3 raises
  ``TooManyRequestsException``);
- ``"too_large"``: HTTP 413, ``RequestEntityTooLargeException``;
- ``"function_error"``: HTTP 200 with ``X-Amz-Function-Error: Unhandled`` and an error body;
- ``"garbage"``: HTTP 200 with a payload that is not the handler's reply;
- ``"run"`` (also the default once the script is used up): runs the real handler
  (``sandboxes.lambda_handler.handler.handle``) in-process and returns its reply, so a
  retried invocation really produces verdicts.

Every request is recorded in ``server.requests`` (the decoded event) for assertions.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field

from aiohttp import web

_PATH = "/2015-03-31/functions/{name}/invocations"


def _error(status: int, kind: str, message: str) -> web.Response:
    return web.Response(status=status, headers={"x-amzn-ErrorType": kind, "Content-Type": "application/json"},
                        text=json.dumps({"Type": "User", "message": message}))


@dataclass
class FakeInvokeServer:
    script: list[str] = field(default_factory=list)
    requests: list[dict] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    endpoint: str = ""
    _runner: web.AppRunner | None = None

    async def start(self) -> str:
        app = web.Application(client_max_size=16 << 20)
        app.router.add_post(_PATH, self._invoke)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        self.endpoint = f"http://127.0.0.1:{port}"
        return self.endpoint

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _invoke(self, request: web.Request) -> web.Response:
        body = await request.read()
        try:
            self.requests.append(json.loads(body))
        except ValueError:
            self.requests.append({"unparsable": body[:100]})
        action = self.script.pop(0) if self.script else "run"
        self.actions.append(action)
        if action == "throttle":
            return _error(429, "TooManyRequestsException", "Rate Exceeded.")
        if action == "too_large":
            return _error(413, "RequestEntityTooLargeException",
                          "Request must be smaller than 6291456 bytes for the InvokeFunction operation")
        if action == "function_error":
            return web.Response(status=200, headers={"X-Amz-Function-Error": "Unhandled"},
                                text=json.dumps({"errorType": "Runtime.ExitError",
                                                 "errorMessage": "RequestId: x Error: Runtime exited with error"}))
        if action == "garbage":
            return web.Response(status=200, text='{"statusCode": 200, "body": "not a batch result"}')
        if action != "run":
            raise ValueError(f"unknown fake action {action!r}")
        from sandboxes.lambda_handler.handler import handle
        reply = await asyncio.to_thread(handle, json.loads(body))
        return web.Response(status=200, text=json.dumps(reply), headers={"X-Amz-Executed-Version": "$LATEST"})
