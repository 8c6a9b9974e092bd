"""Fair admission: a polite client beside a greedy one, FCFS and fair policies in one run.

    python bench/fair_admission.py [--store DIR] [--polite 20] [--greedy-inflight 60]
                                   [--max-inflight 2] [--policies fcfs,fair]

For each policy it starts a real ``verifier serve`` (local sandbox backend, 127.0.0.1) and
measures: the polite client's latency alone (one request at a time, ``X-Client-Id: polite``);
the same beside a greedy client holding ``--greedy-inflight`` requests in flight
(``X-Client-Id: greedy``, a separate process so its event loop does not delay the polite
one) over a window of at least ``--window`` seconds; the total throughput in that window.
The idle figure is taken half before and half after the loaded phase (the machine's load
drifts). Prints one line per figure and the ratios
(polite loaded p50 / idle p50, fair throughput / FCFS throughput). Target: polite ratio <= 2
with the fair policy, throughput unchanged.

``--max-inflight`` defaults to 2, the local backend's slots on a 2-core machine: admission
decides the order only for requests it holds back; requests it lets through wait in the
backend's own first-come line, so slots far above the backend's make any policy FCFS.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from service_harness import (CODE_BODY, RIGHT, build_sample_store, load_line, pct,  # noqa: E402
                             sequential, session, start_server)


def _ac(data) -> bool:
    return data is not None and data.get("verdict") == "AC"


async def greedy_main(url: str, inflight: int) -> None:
    """Keep ``inflight`` requests in flight; on each stdin line print the counts so far as JSON
    (the parent marks the start and the end of its window); stop at EOF."""
    done = {"answered": 0, "refused_then_resent": 0, "errors": 0}
    loop = asyncio.get_running_loop()
    body = dict(CODE_BODY, code=RIGHT)
    hdr = {"X-Client-Id": "greedy"}

    async def worker(s):
        while True:
            async with s.post(url + "/v1/verify", json=body, headers=hdr) as r:
                await r.read()
                if r.status in (429, 503):
                    done["refused_then_resent"] += 1
                    await asyncio.sleep(float(r.headers.get("Retry-After", "1")))
                elif r.status == 200:
                    done["answered"] += 1
                else:
                    done["errors"] += 1
    async with session(inflight + 4) as s:
        tasks = [asyncio.create_task(worker(s)) for _ in range(inflight)]
        while await loop.run_in_executor(None, sys.stdin.readline):
            print(json.dumps(dict(done, t=time.perf_counter())), flush=True)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def measure(url: str, polite_n: int, greedy_inflight: int, window_s: float) -> dict:
    """Idle (half before, half after), then beside the greedy client for at least window_s."""
    hdr = {"X-Client-Id": "polite"}
    body = dict(CODE_BODY, code=RIGHT)

    def polite(s, n):
        return sequential(s, n, "POST", url + "/v1/verify", json_body=body, headers=hdr, check=_ac)
    async with session() as s:
        await polite(s, 5)  # warm: compile cache, manifest cache
        idle = await polite(s, polite_n // 2)
        greedy = subprocess.Popen([sys.executable, __file__, "--greedy-url", url,
                                   "--greedy-inflight", str(greedy_inflight)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

        async def mark() -> dict:
            greedy.stdin.write("mark\n")
            greedy.stdin.flush()
            return json.loads(await asyncio.get_running_loop().run_in_executor(
                None, greedy.stdout.readline))
        try:
            await asyncio.sleep(3.0)  # let the greedy client fill its places
            m0, t0 = await mark(), time.perf_counter()
            loaded = await polite(s, polite_n)
            while time.perf_counter() - t0 < window_s:  # same window for every policy
                loaded += await polite(s, 1)
            m1, t1 = await mark(), time.perf_counter()
        finally:
            greedy.communicate("", timeout=300)
        idle += await polite(s, polite_n - polite_n // 2)
    return {"idle": idle, "loaded": loaded, "window_s": t1 - t0,
            "greedy_answered": m1["answered"] - m0["answered"],
            "greedy_resent": m1["refused_then_resent"], "greedy_errors": m1["errors"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store")
    ap.add_argument("--polite", type=int, default=20, help="polite requests per phase")
    ap.add_argument("--greedy-inflight", type=int, default=60)
    ap.add_argument("--max-inflight", type=int, default=2)
    ap.add_argument("--queue-size", type=int, default=256)
    ap.add_argument("--policies", default="fcfs,fair", help="repeat names to alternate")
    ap.add_argument("--window", type=float, default=20.0, help="seconds beside the greedy client")
    ap.add_argument("--greedy-url", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.greedy_url:
        asyncio.run(greedy_main(args.greedy_url, args.greedy_inflight))
        return 0
    store = build_sample_store(args.store)
    print(f"# {load_line()} (start)")
    results: dict[str, list[float]] = {}
    for policy in args.policies.split(","):
        srv = start_server(store, max_inflight=args.max_inflight, queue_size=args.queue_size,
                           work={"policy": policy})
        try:
            r = asyncio.run(measure(srv.url, args.polite, args.greedy_inflight, args.window))
        finally:
            srv.stop()
        idle50, load50 = pct(r["idle"], 0.5), pct(r["loaded"], 0.5)
        total_rps = (r["greedy_answered"] + len(r["loaded"])) / r["window_s"]
        results.setdefault(policy, []).append(total_rps)
        print(f"{policy}: polite idle p50 {idle50 * 1000:.0f} ms, p99 {pct(r['idle'], 0.99) * 1000:.0f} ms")
        print(f"{policy}: polite beside greedy({args.greedy_inflight} in flight) p50 "
              f"{load50 * 1000:.0f} ms, p99 {pct(r['loaded'], 0.99) * 1000:.0f} ms "
              f"({len(r['loaded'])} requests), ratio p50 {load50 / idle50:.2f}x")
        print(f"{policy}: in {r['window_s']:.1f} s greedy answered {r['greedy_answered']}, "
              f"polite {len(r['loaded'])}: total {total_rps:.1f}/s; greedy 429/503 resent "
              f"{r['greedy_resent']}, errors {r['greedy_errors']}")
        print(f"# {load_line()} (after {policy})")
    if "fcfs" in results and "fair" in results:
        fair, fcfs = (sum(results[k]) / len(results[k]) for k in ("fair", "fcfs"))
        print(f"throughput fair/fcfs: {fair / fcfs:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
