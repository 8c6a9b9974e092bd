"""Fair admission: a polite client beside a greedy one, FCFS and fair policies in one run.

    python bench/fair_admission.py [--store DIR] [--polite 20] [--greedy-inflight 60]
                                   [--max-inflight 2] [--policies fcfs,fair]

For each policy it starts a real ``verifier serve`` (local sandbox backend, 127.0.0.1) and
measures: the polite client's latency alone (one request at a time, ``X-Client-Id: polite``);
the same beside a greedy client holding ``--greedy-inflight`` requests in flight
(``X-Client-Id: greedy``, a separate process so its event loop does not delay the polite
one); the greedy client's and the total throughput. Prints one line per figure and the ratios
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
                             sequential, session, start_server, timed)


def _ac(data) -> bool:
    return data is not None and data.get("verdict") == "AC"


async def greedy_main(url: str, inflight: int) -> None:
    """Keep ``inflight`` requests in flight until stdin says stop; print counts as JSON."""
    stop = asyncio.Event()
    done = {"answered": 0, "refused_then_resent": 0, "errors": 0}
    loop = asyncio.get_running_loop()
    loop.run_in_executor(None, lambda: (sys.stdin.readline(), loop.call_soon_threadsafe(stop.set)))
    body = dict(CODE_BODY, code=RIGHT)
    hdr = {"X-Client-Id": "greedy"}

    async def worker(s):
        while not stop.is_set():
            async with s.post(url + "/v1/verify", json=body, headers=hdr) as r:
                await r.read()
                if r.status in (429, 503):
                    done["refused_then_resent"] += 1
                    await asyncio.sleep(float(r.headers.get("Retry-After", "1")))
                elif r.status == 200:
                    done["answered"] += 1
                else:
                    done["errors"] += 1
    t0 = time.perf_counter()
    async with session(inflight + 4) as s:
        tasks = [asyncio.create_task(worker(s)) for _ in range(inflight)]
        await stop.wait()
        elapsed = time.perf_counter() - t0
        answered = done["answered"]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps(dict(done, answered=answered, elapsed_s=elapsed)), flush=True)


async def measure(url: str, polite_n: int, greedy_inflight: int) -> dict:
    hdr = {"X-Client-Id": "polite"}
    body = dict(CODE_BODY, code=RIGHT)
    async with session() as s:
        await sequential(s, 5, "POST", url + "/v1/verify", json_body=body, headers=hdr, check=_ac)
        idle = await sequential(s, polite_n, "POST", url + "/v1/verify", json_body=body,
                                headers=hdr, check=_ac)
        greedy = subprocess.Popen([sys.executable, __file__, "--greedy-url", url,
                                   "--greedy-inflight", str(greedy_inflight)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            await asyncio.sleep(3.0)  # let the greedy client fill its 60 places
            t0 = time.perf_counter()
            loaded = await sequential(s, polite_n, "POST", url + "/v1/verify", json_body=body,
                                      headers=hdr, check=_ac)
            polite_s = time.perf_counter() - t0
        finally:
            out, _ = greedy.communicate("stop\n", timeout=300)
    g = json.loads(out.strip().splitlines()[-1])
    return {"idle": idle, "loaded": loaded, "polite_s": polite_s, "greedy": g}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store")
    ap.add_argument("--polite", type=int, default=20, help="polite requests per phase")
    ap.add_argument("--greedy-inflight", type=int, default=60)
    ap.add_argument("--max-inflight", type=int, default=2)
    ap.add_argument("--queue-size", type=int, default=256)
    ap.add_argument("--policies", default="fcfs,fair")
    ap.add_argument("--greedy-url", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.greedy_url:
        asyncio.run(greedy_main(args.greedy_url, args.greedy_inflight))
        return 0
    store = build_sample_store(args.store)
    print(f"# {load_line()} (start)")
    results = {}
    for policy in args.policies.split(","):
        srv = start_server(store, max_inflight=args.max_inflight, queue_size=args.queue_size,
                           work={"policy": policy})
        try:
            r = asyncio.run(measure(srv.url, args.polite, args.greedy_inflight))
        finally:
            srv.stop()
        idle50, load50 = pct(r["idle"], 0.5), pct(r["loaded"], 0.5)
        g = r["greedy"]
        greedy_rps = g["answered"] / g["elapsed_s"]
        total_rps = greedy_rps + len(r["loaded"]) / r["polite_s"]
        results[policy] = total_rps
        print(f"{policy}: polite idle p50 {idle50 * 1000:.0f} ms, p99 {pct(r['idle'], 0.99) * 1000:.0f} ms")
        print(f"{policy}: polite beside greedy({args.greedy_inflight} in flight) p50 "
              f"{load50 * 1000:.0f} ms, p99 {pct(r['loaded'], 0.99) * 1000:.0f} ms, "
              f"ratio p50 {load50 / idle50:.2f}x")
        print(f"{policy}: greedy answered {g['answered']} in {g['elapsed_s']:.1f} s "
              f"({greedy_rps:.1f}/s), 429/503 resent {g['refused_then_resent']}, errors "
              f"{g['errors']}; total {total_rps:.1f}/s")
        print(f"# {load_line()} (after {policy})")
    if "fcfs" in results and "fair" in results:
        print(f"throughput fair/fcfs: {results['fair'] / results['fcfs']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
