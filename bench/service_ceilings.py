"""Service memory and transient area under huge /v1/execute outputs, with the ceilings.

Runs the real service (local sandbox backend, a file store in a temporary directory) over
HTTP on loopback and sends one /v1/execute whose program prints MIB MiB on each of N inputs,
asking for an output cap that fits. Prints: the answer (200, or 422 naming the ceiling),
the service process's peak RSS growth, the transient area's size after the request, and
after the service's own collection once the outputs expire.

    python bench/service_ceilings.py [--mib 200] [--inputs 4] [--ceiling-mib N]

--ceiling-mib sets max_request_output_bytes (default: the machine-sized default).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import tempfile
import time
from pathlib import Path


def _dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", type=int, default=200)
    ap.add_argument("--inputs", type=int, default=4)
    ap.add_argument("--ceiling-mib", type=int, default=None)
    args = ap.parse_args()

    from aiohttp.test_utils import TestClient, TestServer

    from problem_store.blobs.file import FileBlobStore
    from verifier.app import create_app
    from verifier.config import VerifierConfig
    from verifier.wiring import build_service

    with tempfile.TemporaryDirectory() as tmp:
        store = FileBlobStore(Path(tmp) / "store")
        link = store.put(b"x\n")[0]
        extra = {}
        if args.ceiling_mib:
            extra["max_request_output_bytes"] = args.ceiling_mib << 20
        cfg = VerifierConfig(store_uri=str(store.root), backend="local", self_test=False,
                             transient_ttl_s=2.0, transient_gc_interval_s=1.0,
                             max_output_kb=max(args.mib, 1) * 1024 + 1024, **extra)
        service = build_service(cfg)
        await service.start()
        code = (f"import sys\nchunk = b'y' * (1 << 20)\nfor _ in range({args.mib}):\n"
                "    sys.stdout.buffer.write(chunk)\n")
        body = {"language": "python", "code": code,
                "limits": {"output_limit_kb": args.mib * 1024 + 1024, "memory_mb": 256},
                "inputs": [{"name": f"i{k}", "input": link} for k in range(args.inputs)]}
        rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        async with TestClient(TestServer(create_app(service, manage_service=False),
                                         host="127.0.0.1")) as c:
            t0 = time.perf_counter()
            r = await c.post("/v1/execute", json=body)
            out = await r.json()
            dt = time.perf_counter() - t0
        rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        transient = Path(store.root) / "objects" / "transient"
        after = _dir_bytes(Path(store.root))
        await asyncio.sleep(cfg.transient_ttl_s + 2 * cfg.transient_gc_interval_s + 0.5)
        collected = _dir_bytes(Path(store.root))
        await service.close()
    summary = {"status": r.status, "seconds": round(dt, 2),
               "message": out.get("message", "")[:200] if r.status != 200 else "",
               "runs": [x["status"] for x in out.get("runs", [])],
               "max_request_output_mib": cfg.max_request_output_bytes >> 20,
               "peak_rss_growth_mib": round((rss1 - rss0) / 1024, 1),
               "store_mib_after_request": round(after / 2**20, 1),
               "store_mib_after_collection": round(collected / 2**20, 1),
               "transient_dir": str(transient.relative_to(Path(tmp)))}
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    asyncio.run(main())
