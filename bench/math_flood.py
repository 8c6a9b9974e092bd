"""Work-class isolation: code judging and store reads while 100 hanging math answers are in flight.

    python bench/math_flood.py [--store DIR] [--flood 100] [--code 40] [--reads 200]
                               [--configs default,idle]

Against a real ``verifier serve`` (local sandbox backend, 127.0.0.1) it measures, one after the
other in the same server: a code client (``POST /v1/verify`` of sum-two, one at a time) and a
store reader (``GET /v1/problems/sum-two``, one at a time) with no other traffic; then the same
while a flood client keeps ``--flood`` worst-case math answers in flight (answers whose
evaluation never ends, each held to the math judge's timeout; 429s resent after Retry-After).
Prints p50/p99 for each and the flooded/unflooded p99 ratios (target <= 1.5).

``--configs`` (repeat names to alternate): ``default`` (sympy workers at nice 10 in their own
session, lowered to autogroup nice 10 after 0.25 s on an answer and moved into a cpu.idle
cgroup that is held while other requests are in flight, a math queue holding all 100),
``no-hold`` (the same without holding: ``math_hold: false``), ``idle`` (workers under SCHED_IDLE, autogroup nice 19), ``normal`` (workers at the service's
own priority), ``queue64`` (the default math queue: 36 answers bounce with 429 and are resent
every second), ``one-worker`` (default with a single sympy worker: one core stays free).
The flood client runs in its own process so that its event loop does not delay the probes.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from service_harness import (CODE_BODY, RIGHT, build_sample_store, load_line, pct,  # noqa: E402
                             sequential, session, start_server)

# Each parses (so it reaches sympy) and cannot be evaluated in any budget: the judge holds
# it to the full math timeout. (Power towers and huge factorials, the first flood, are now
# refused at once as too_large by the size check, so they no longer load the workers.)
HANGING = [r"\boxed{\sum_{k=1}^{10^{6}} k^{k}}", r"\boxed{\binom{10^{7}}{5 \cdot 10^{6}}}",
           r"\boxed{\sum_{n=1}^{100000} \frac{1}{n^{2}}}", r"The answer is $\sum_{k=1}^{10^{6}} k^{k}$."]
# math_queue_size 128: all 100 answers wait in the math queue (none bounce with 429);
# queue64 is the default queue, where 36 of them are refused and resent every second.
CONFIGS = {"default": {"math_queue_size": 128},
           "one-worker": {"math_queue_size": 128, "math_workers": 1},
           "idle": {"math_queue_size": 128, "math_priority": "idle"},
           "no-hold": {"math_queue_size": 128, "math_hold": False},
           "normal": {"math_queue_size": 128, "math_priority": "normal"},
           "queue64": {}}


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


async def flood_main(url: str, flood: int) -> None:
    """Keep ``flood`` hanging math answers in flight until stdin says stop; print counts."""
    stop = asyncio.Event()
    stats = {"answered": 0, "refused": 0, "other": {}}
    answers = itertools.cycle(HANGING)
    loop = asyncio.get_running_loop()
    loop.run_in_executor(None, lambda: (sys.stdin.readline(), loop.call_soon_threadsafe(stop.set)))

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
                    stats["other"][str(r.status)] = stats["other"].get(str(r.status), 0) + 1

    async with session(flood + 8) as s:
        tasks = [asyncio.create_task(flooder(s)) for _ in range(flood)]
        await stop.wait()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps(stats), flush=True)


async def flooded(url: str, flood: int, n_code: int, n_reads: int) -> dict:
    """The probes while a separate process floods (its event loop must not delay ours)."""
    proc = subprocess.Popen([sys.executable, __file__, "--flood-url", url, "--flood", str(flood)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        await asyncio.sleep(3.0)  # workers busy, math queue filled
        async with session() as s:
            async with s.get(url + "/readyz") as r:
                ready = (r.status, (await r.json()).get("detail", {}))
        t0 = time.perf_counter()
        code, reads = await probe(url, n_code, n_reads)
        window = time.perf_counter() - t0
    finally:
        out, _ = proc.communicate("stop\n", timeout=300)
    return {"code": code, "reads": reads, "window_s": window, "ready": ready,
            "flood": json.loads(out.strip().splitlines()[-1])}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store")
    ap.add_argument("--flood", type=int, default=100)
    ap.add_argument("--code", type=int, default=40)
    ap.add_argument("--reads", type=int, default=200)
    ap.add_argument("--max-inflight", type=int, default=2)
    ap.add_argument("--configs", default="default")
    ap.add_argument("--flood-url", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.flood_url:
        asyncio.run(flood_main(args.flood_url, args.flood))
        return 0
    store = build_sample_store(args.store)
    print(f"# {load_line()} (start)")
    for name in args.configs.split(","):
        work = dict(CONFIGS[name])
        srv = start_server(store, max_inflight=args.max_inflight, queue_size=256, work=work)
        try:
            asyncio.run(probe(srv.url, 5, 5))  # warm: compile cache, manifest cache
            # unflooded before and after the flood (the machine is shared: its load drifts)
            base_code, base_reads = asyncio.run(probe(srv.url, args.code // 2, args.reads // 2))
            f = asyncio.run(flooded(srv.url, args.flood, args.code, args.reads))
            time.sleep(7.0)  # the last hanging answers reach their timeout; the queue empties
            c2, r2 = asyncio.run(probe(srv.url, args.code - args.code // 2,
                                       args.reads - args.reads // 2))
            base_code, base_reads = base_code + c2, base_reads + r2
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
