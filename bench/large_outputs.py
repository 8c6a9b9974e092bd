"""The service's event loop while runs hand back large outputs.

    python bench/large_outputs.py [--store DIR] [--flooders 4] [--mib 60] [--rounds 3]
                                  [--endpoint verify|execute]

Against a real ``verifier serve`` (local sandbox backend, 127.0.0.1). ``--flooders`` clients
each send one Python submission that writes ``--mib`` MiB to stdout. With ``execute`` it goes
to ``/v1/execute`` (sum-two's first test input, ``output_limit_kb`` 64 MiB): the whole output
comes back from the sandbox and is kept in the transient store, verdict OK. With ``verify``
(the default) it goes to ``/v1/verify`` (problem sum-two, test 01); it writes
``--mib`` MiB to stdout and exits 0: far over what the checker may read of a small answer
(``verifier.judging.stdio.output_budget``), so OLE, but the sandbox hands all of it back (the
problem's output cap is 64 MiB); all of them at once, ``--rounds`` times. Meanwhile a probe sends ``GET /healthz``
one after the other: every millisecond the loop spends on one request's bytes is a
millisecond the probe (and every other client) waits. Prints the probe's latency while the
floods ran (p50 / p99 / max) and the floods' own latency; every flood verdict must be OLE.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from service_harness import build_sample_store, load_line, pct, session, start_server, timed  # noqa: E402


def flood_code(mib: int) -> str:
    return ("import sys\nchunk = b'1\\n' * (1 << 19)\n"
            f"for _ in range({mib}):\n    sys.stdout.buffer.write(chunk)\n")


async def probe(url: str, stop: asyncio.Event) -> list[float]:
    lat = []
    async with session() as s:
        while not stop.is_set():
            dt, status, _ = await timed(s, "GET", url + "/healthz", retry_429=False)
            if status != 200:
                raise RuntimeError(f"/healthz: HTTP {status}")
            lat.append(dt)
    return lat


async def flood(url: str, code: str, i: int, execute_input: str | None) -> float:
    if execute_input:
        body = {"language": "python", "code": code + f"# {i}\n",
                "inputs": [{"name": "01", "input": execute_input}],
                "limits": {"output_limit_kb": 64 * 1024}}
        async with session() as s:
            dt, status, data = await timed(s, "POST", url + "/v1/execute", json_body=body,
                                           headers={"X-Client-Id": f"flood-{i}"})
        run = (data or {}).get("runs", [{}])[0]
        if status != 200 or run.get("status") != "OK" or i == 0:
            print(f"  flood {i}: HTTP {status}, {run.get('status')}, {run.get('output_bytes')} bytes")
        if status != 200 or run.get("status") != "OK":
            raise RuntimeError(f"flood {i}: HTTP {status} {str(data)[:300]}")
        return dt
    body = {"problem_id": "sum-two", "language": "python", "code": code + f"# {i}\n",
            "options": {"tests": ["01"]}}
    async with session() as s:
        dt, status, data = await timed(s, "POST", url + "/v1/verify", json_body=body,
                                       headers={"X-Client-Id": f"flood-{i}"})
    if status != 200 or data is None or data.get("verdict") != "OLE" or i == 0:
        print(f"  flood {i}: HTTP {status}, {data.get('verdict') if data else None}: "
              f"{data['tests'][0]['message'][:120] if data and data.get('tests') else ''}")
    if status != 200 or data is None or data.get("verdict") != "OLE":
        raise RuntimeError(f"flood {i}: HTTP {status} {str(data)[:300]}")
    return dt


async def one_round(url: str, code: str, flooders: int, base: int,
                    execute_input: str | None) -> tuple[list[float], list[float]]:
    stop = asyncio.Event()
    probing = asyncio.ensure_future(probe(url, stop))
    await asyncio.sleep(0.2)
    floods = await asyncio.gather(*(flood(url, code, base + i, execute_input)
                                    for i in range(flooders)))
    stop.set()
    return await probing, floods


async def main_async(args) -> None:
    store = build_sample_store(args.store)
    execute_input = None
    if args.endpoint == "execute":
        from problem_store.problems import ProblemStore
        from problem_store.uri import open_store

        execute_input = ProblemStore(open_store(store)).get("sum-two").tests[0].input
    server = start_server(store, max_inflight=64, queue_size=256)
    try:
        url = server.url
        code = flood_code(args.mib)
        print(f"/v1/{args.endpoint}: {args.flooders} submissions at once, each writing "
              f"{args.mib} MiB; {load_line()} before")
        print("| round | /healthz p50 ms | p99 ms | max ms | probes | floods' latency s (max) |")
        print("|---:|---:|---:|---:|---:|---:|")
        every = []
        for r in range(args.rounds):
            t0 = time.perf_counter()
            lat, floods = await one_round(url, code, args.flooders, r * args.flooders, execute_input)
            every += lat
            print(f"| {r + 1} | {pct(lat, 0.5) * 1e3:.1f} | {pct(lat, 0.99) * 1e3:.1f} | "
                  f"{max(lat) * 1e3:.1f} | {len(lat)} | {max(floods):.2f} "
                  f"(round {time.perf_counter() - t0:.1f} s) |", flush=True)
        print(f"all rounds: /healthz p50 {pct(every, 0.5) * 1e3:.1f} ms, p99 "
              f"{pct(every, 0.99) * 1e3:.1f} ms, max {max(every) * 1e3:.1f} ms; {load_line()} after")
    finally:
        server.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store")
    ap.add_argument("--flooders", type=int, default=4)
    ap.add_argument("--mib", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--endpoint", choices=["verify", "execute"], default="verify")
    asyncio.run(main_async(ap.parse_args()))


if __name__ == "__main__":
    main()
