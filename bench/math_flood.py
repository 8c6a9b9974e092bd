"""Work-class isolation: code judging and store reads while 100 hanging math answers are in flight.

    python bench/math_flood.py [--store DIR] [--flood 100] [--code 40] [--reads 200]
                               [--configs default,nice0]

Against a real ``verifier serve`` (local sandbox backend, 127.0.0.1) it measures, one after the
other in the same server: a code client (``POST /v1/verify`` of sum-two, one at a time) and a
store reader (``GET /v1/problems/sum-two``, one at a time) with no other traffic; then the same
while a flood client keeps ``--flood`` worst-case math answers in flight (answers whose
evaluation never ends, each held to the math judge's timeout; 429s resent after Retry-After).
Prints p50/p99 for each and the flooded/unflooded p99 ratios (target <= 1.5).

``--configs``: ``default`` (sympy workers at nice 10), ``nice0`` (workers at the service's own
priority, to show what the niceness buys on a small machine).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from service_harness import (CODE_BODY, RIGHT, build_sample_store, load_line, pct,  # noqa: E402
                             sequential, session, start_server)

# Each parses (so it reaches sympy) and cannot be evaluated in any budget.
HANGING = [r"\boxed{10^{10^{10^{10}}}}", r"\boxed{(10^{100})!}", r"\boxed{9^{9^{9^{9}}}}",
           r"The answer is $(10^{10})!!$."]
CONFIGS = {"default": {}, "nice0": {"math_nice": 0}}


def _ac(data) -> bool:
    return data is not None and data.get("verdict") == "AC"


async def probe(url: str, n_code: int, n_reads: int) -> tuple[list[float], list[float]]:
    async with session() as s:
        code, reads = await asyncio.gather(
            sequential(s, n_code, "POST", url + "/v1/verify", json_body=dict(CODE_BODY, code=RIGHT),
                       headers={"X-Client-Id": "coder"}, check=_ac),
            sequential(s, n_reads, "GET", url + "/v1/problems/sum-two",
                       headers={"X-Client-Id": "reader"}))
    return code, reads


async def flooded(url: str, flood: int, n_code: int, n_reads: int) -> dict:
    stop = asyncio.Event()
    stats = {"answered": 0, "refused": 0, "other": {}}
    answers = itertools.cycle(HANGING)

    async def flooder(s):
        while not stop.is_set():
            body = {"gold": "5", "prediction": next(answers)}
            async with s.post(url + "/v1/math/verify", json=body,
                              headers={"X-Client-Id": "flood"}) as r:
                await r.read()
                if r.status in (429, 503):
                    stats["refused"] += 1
                    await asyncio.sleep(float(r.headers.get("Retry-After", "1")))
                elif r.status == 200:
                    stats["answered"] += 1
                else:
                    stats["other"][r.status] = stats["other"].get(r.status, 0) + 1

    async with session(flood + 8) as s:
        tasks = [asyncio.create_task(flooder(s)) for _ in range(flood)]
        await asyncio.sleep(3.0)  # workers busy, math queue full
        async with s.get(url + "/readyz") as r:
            ready = (r.status, (await r.json()).get("detail", {}))
        t0 = time.perf_counter()
        code, reads = await probe(url, n_code, n_reads)
        window = time.perf_counter() - t0
        stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return {"code": code, "reads": reads, "window_s": window, "flood": stats, "ready": ready}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store")
    ap.add_argument("--flood", type=int, default=100)
    ap.add_argument("--code", type=int, default=40)
    ap.add_argument("--reads", type=int, default=200)
    ap.add_argument("--max-inflight", type=int, default=2)
    ap.add_argument("--configs", default="default")
    args = ap.parse_args()
    store = build_sample_store(args.store)
    print(f"# {load_line()} (start)")
    for name in args.configs.split(","):
        work = dict(CONFIGS[name], math_queue_size=max(64, args.flood))
        srv = start_server(store, max_inflight=args.max_inflight, queue_size=256, work=work)
        try:
            asyncio.run(probe(srv.url, 5, 5))  # warm: compile cache, manifest cache
            base_code, base_reads = asyncio.run(probe(srv.url, args.code, args.reads))
            f = asyncio.run(flooded(srv.url, args.flood, args.code, args.reads))
        finally:
            srv.stop()
        for label, base, fl in (("code /v1/verify", base_code, f["code"]),
                                ("GET /v1/problems/ID", base_reads, f["reads"])):
            print(f"{name}: {label}: unflooded p50 {pct(base, .5) * 1000:.1f} ms p99 "
                  f"{pct(base, .99) * 1000:.1f} ms; flooded p50 {pct(fl, .5) * 1000:.1f} ms p99 "
                  f"{pct(fl, .99) * 1000:.1f} ms; p99 ratio {pct(fl, .99) / pct(base, .99):.2f}x")
        st, detail = f["ready"]
        math = detail.get("work_classes", {}).get("math", {})
        print(f"{name}: flood {args.flood} in flight: {f['flood']['answered']} math answers "
              f"judged, {f['flood']['refused']} refused and resent, other {f['flood']['other']} "
              f"in {f['window_s']:.1f} s; /readyz during flood {st}, math saturated "
              f"{math.get('saturated')} (running {math.get('running')}, waiting {math.get('waiting')})")
        print(f"# {load_line()} (after {name})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
