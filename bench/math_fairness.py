"""Math workers shared between clients: one client's slow answers vs another's quick one.

    python bench/math_fairness.py [--store DIR] [--heavy 4] [--light 10]
                                  [--configs no-reserve,reserve,no-reserve,reserve]

Against a real ``verifier serve`` (local sandbox backend, 127.0.0.1). A heavy client
(``X-Client-Id: heavy``, its own process) keeps ``--heavy`` answers in flight that each hold a
sympy worker to the math timeout (5 s; bench/math_flood.py's answers). A light client
(``X-Client-Id: light``) sends ``--light`` answers one at a time that need a sympy worker but
take it only briefly (a factored polynomial against its expanded gold). Prints the light
client's latency alone and beside the heavy one, and checks every light verdict.

Configs (repeat names to alternate): ``reserve`` (the default: 2 sympy workers plus 1 that only
a client running nothing may take, ``math_reserve_workers: 1``) and ``no-reserve``
(``math_reserve_workers: 0``: the behaviour before).
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

from math_flood import HANGING  # noqa: E402
from service_harness import build_sample_store, load_line, pct, session, start_server, timed  # noqa: E402

CONFIGS = {"reserve": {"math_queue_size": 128},
           "no-reserve": {"math_queue_size": 128, "math_reserve_workers": 0}}
# quick in sympy, but not decided in the request threads (a symbolic identity)
LIGHT = [("x^2 - 1", r"\boxed{(x-1)(x+1)}", True), ("x^2 + 2x + 1", r"\boxed{(x+1)^2}", True),
         ("x^2 - 4", r"\boxed{(x-2)(x+3)}", False)]


async def light_client(url: str, n: int) -> tuple[list[float], int]:
    lat, wrong = [], 0
    async with session() as s:
        for i in range(n):
            gold, pred, want = LIGHT[i % len(LIGHT)]
            dt, status, data = await timed(
                s, "POST", url + "/v1/math/verify", headers={"X-Client-Id": "light"},
                json_body={"gold": gold, "prediction": pred})
            if status != 200 or data is None or data.get("equivalent") is not want:
                wrong += 1
            lat.append(dt)
    return lat, wrong


async def math_running(url: str) -> int:
    async with session() as s:
        async with s.get(url + "/readyz") as r:
            detail = (await r.json()).get("detail", {})
    return detail.get("work_classes", {}).get("math", {}).get("running", -1)


async def heavy_main(url: str, in_flight: int) -> None:
    """Keep ``in_flight`` slow answers going until stdin says stop; print counts."""
    stats = {"answered": 0, "refused": 0}
    answers = itertools.cycle(HANGING)
    stop = asyncio.Event()

    async def one(s):
        while not stop.is_set():
            dt, status, _ = await timed(s, "POST", url + "/v1/math/verify", retry_429=False,
                                        headers={"X-Client-Id": "heavy"},
                                        json_body={"gold": "1", "prediction": next(answers)})
            stats["answered" if status == 200 else "refused"] += 1
            if status != 200:
                await asyncio.sleep(0.2)

    async with session() as s:
        tasks = [asyncio.create_task(one(s)) for _ in range(in_flight)]
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps(stats), flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store")
    ap.add_argument("--heavy", type=int, default=4)
    ap.add_argument("--light", type=int, default=10)
    ap.add_argument("--configs", default="no-reserve,reserve")
    ap.add_argument("--heavy-url", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.heavy_url:
        asyncio.run(heavy_main(args.heavy_url, args.heavy))
        return 0
    store = build_sample_store(args.store)
    print(f"# {load_line()} (start)")
    for name in args.configs.split(","):
        srv = start_server(store, max_inflight=2, queue_size=256, work=CONFIGS[name])
        try:
            asyncio.run(light_client(srv.url, 3))  # warm: workers started, sympy imported
            alone, wrong_alone = asyncio.run(light_client(srv.url, args.light))
            proc = subprocess.Popen([sys.executable, __file__, "--heavy-url", srv.url,
                                     "--heavy", str(args.heavy)],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            try:
                time.sleep(2.0)  # every regular worker busy with a slow answer
                busy = asyncio.run(math_running(srv.url))
                t0 = time.perf_counter()
                beside, wrong = asyncio.run(light_client(srv.url, args.light))
                window = time.perf_counter() - t0
            finally:
                out, _ = proc.communicate("stop\n", timeout=300)
            heavy = json.loads(out.strip().splitlines()[-1])
        finally:
            srv.stop()
        print(f"{name}: light alone p50 {pct(alone, .5) * 1000:.0f} ms max {max(alone) * 1000:.0f} ms; "
              f"beside {args.heavy} slow answers p50 {pct(beside, .5) * 1000:.0f} ms "
              f"p90 {pct(beside, .9) * 1000:.0f} ms max {max(beside) * 1000:.0f} ms "
              f"({args.light} answers in {window:.1f} s, {busy} slow answers running as they "
              f"started); wrong verdicts {wrong_alone + wrong}; "
              f"heavy answered {heavy['answered']}, refused {heavy['refused']}")
        print(f"# {load_line()} (after {name})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
