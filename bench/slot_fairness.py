"""Sleeping submissions against correct ones: what one client's cheap hangs cost others.

    python bench/slot_fairness.py [--store DIR] [--sleepers 6] [--rounds 1]

Starts a real ``verifier serve`` (local backend, 127.0.0.1, the sample store) and runs the
two red-team scenarios of the hostile reviews, with the function problem ``add-two``
(3 tests, 2 s CPU limit), whose sleeping candidate (``time.sleep(3600)``) uses no CPU and
holds a sandbox slot until a wall limit stops it:

1. *sybil*: ``--sleepers`` sleeping submissions, each under its own invented
   ``X-Client-Id``, then (1 s later) one correct submission of client ``victim``; and the
   same with all sleepers under one id. Figure: the victim's latency (and its verdict).
2. *batch*: one ``/v1/verify/batch`` request of ``--sleepers`` sleeping and 2 correct
   submissions, sleepers listed first. Figures: the request's wall time and every item's
   verdict (an IE there means an item was not judged within the request's deadline).

Prints one line per figure and the load average; asserts nothing (figures only).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from service_harness import build_sample_store, load_line, session, start_server, timed  # noqa: E402

SLEEPER = "import time\ndef add(a, b):\n    time.sleep(3600)\n"
CORRECT = "def add(a, b):\n    return a + b\n"
PROBLEM = "add-two"


async def sybil(url: str, sleepers: int, invent_ids: bool) -> dict:
    async with session() as s:
        body = lambda code: {"problem_id": PROBLEM, "code": code}  # noqa: E731
        attackers = []
        for i in range(sleepers):
            headers = {"X-Client-Id": f"attacker{i}" if invent_ids else "attacker"}
            attackers.append(asyncio.create_task(
                timed(s, "POST", f"{url}/v1/verify", json_body=body(SLEEPER), headers=headers)))
            await asyncio.sleep(0.05)
        await asyncio.sleep(1.0)
        dt, status, data = await timed(s, "POST", f"{url}/v1/verify", json_body=body(CORRECT),
                                       headers={"X-Client-Id": "victim"})
        done = await asyncio.gather(*attackers)
    return {"victim_s": dt, "victim": (status, (data or {}).get("verdict")),
            "attackers": sorted({(st, (d or {}).get("verdict")) for _, st, d in done})}


async def batch(url: str, sleepers: int) -> dict:
    subs = [{"problem_id": PROBLEM, "code": SLEEPER}] * sleepers + [{"problem_id": PROBLEM, "code": CORRECT}] * 2
    async with session() as s:
        dt, status, data = await timed(s, "POST", f"{url}/v1/verify/batch", json_body={"submissions": subs},
                                       headers={"X-Client-Id": "rl"})
    verdicts = [r.get("verdict") for r in (data or {}).get("results", [])]
    return {"wall_s": dt, "status": status, "sleepers": verdicts[:sleepers], "correct": verdicts[sleepers:]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--store", default=None, help="an existing store with the sample problems")
    p.add_argument("--sleepers", type=int, default=6)
    p.add_argument("--rounds", type=int, default=1)
    args = p.parse_args()
    store = build_sample_store(args.store)
    srv = start_server(store, max_inflight=64, queue_size=256)
    try:
        print(f"# slot fairness, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {load_line()}")
        for r in range(1, args.rounds + 1):
            for invent in (True, False):
                out = asyncio.run(sybil(srv.url, args.sleepers, invent))
                who = f"{args.sleepers} ids" if invent else "1 id"
                print(f"round {r} sybil ({args.sleepers} sleepers, {who}): victim {out['victim_s']:.1f} s "
                      f"{out['victim']}; attackers {out['attackers']}")
            out = asyncio.run(batch(srv.url, args.sleepers))
            print(f"round {r} batch ({args.sleepers} sleepers + 2 correct): {out['wall_s']:.1f} s, HTTP "
                  f"{out['status']}; sleepers {out['sleepers']}; correct {out['correct']}")
        print(f"# end, {load_line()}")
    finally:
        srv.stop()


if __name__ == "__main__":
    main()
