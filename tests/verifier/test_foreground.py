"""Which requests count as foreground (they hold slow math answers): all but /v1/math/*,
minus the time a request waits for its own math answer; idle only after the linger time."""

from __future__ import annotations

import asyncio

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from verifier.foreground import Foreground


async def _ticks(n: int = 5) -> None:
    for _ in range(n):
        await asyncio.sleep(0)


def _app(fg: Foreground, gates: dict) -> web.Application:
    math_run = fg.wrap(lambda: gates["math"].wait())  # stands in for the math executor

    async def code(request):
        await gates["code"].wait()
        return web.json_response({})

    async def math(request):
        await gates["math"].wait()
        return web.json_response({})

    async def mixed(request):  # a math problem through /v1/verify: two answers at once
        await asyncio.gather(math_run(), math_run())
        await gates["after"].wait()
        return web.json_response({})

    app = web.Application(middlewares=[fg.middleware()])
    app.router.add_post("/v1/verify", code)
    app.router.add_post("/v1/math/verify", math)
    app.router.add_post("/v1/mixed", mixed)
    return app


@pytest.mark.asyncio
async def test_busy_while_non_math_requests_run_and_not_while_they_wait_for_math():
    fg = Foreground(linger_s=0)
    seen = []
    fg.listen(seen.append)
    gates = {k: asyncio.Event() for k in ("code", "math", "after")}
    async with TestClient(TestServer(_app(fg, gates))) as client:
        # a math request alone never makes the service busy
        t = asyncio.create_task(client.post("/v1/math/verify"))
        await _ticks(20)
        assert seen == [] and fg.count == 0
        gates["math"].set()
        await t
        gates["math"].clear()

        # a code request: busy at once, idle once it is done (after the linger)
        t = asyncio.create_task(client.post("/v1/verify"))
        while not seen:
            await asyncio.sleep(0)
        assert seen == [True] and fg.count == 1
        gates["code"].set()
        await t
        await _ticks()
        assert seen == [True, False] and fg.count == 0

        # a request waiting on two math answers is out of the foreground meanwhile, and
        # back in it once both are in
        t = asyncio.create_task(client.post("/v1/mixed"))
        while len(seen) < 4:
            await asyncio.sleep(0)
        assert seen == [True, False, True, False] and fg.count == 0
        gates["math"].set()
        while len(seen) < 5:
            await asyncio.sleep(0)
        assert seen[-1] is True and fg.count == 1
        gates["after"].set()
        await t
        await _ticks()
        assert seen[-1] is False and fg.count == 0
    fg.close()


@pytest.mark.asyncio
async def test_linger_keeps_sequential_requests_busy():
    fg = Foreground(linger_s=3600)  # never lapses within the test
    seen = []
    fg.listen(seen.append)
    gates = {k: asyncio.Event() for k in ("code", "math", "after")}
    gates["code"].set()
    async with TestClient(TestServer(_app(fg, gates))) as client:
        for _ in range(5):
            await client.post("/v1/verify")
        assert seen == [True] and fg.count == 0  # one busy period for back-to-back requests
    fg.close()
