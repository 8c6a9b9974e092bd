"""A smaller version of bench/verifier_load.py: concurrency 64 against a server with a small
queue; every request is answered with the right verdict, none lost, no IE, and the overflow is
refused with 429 + Retry-After (never an error)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from tests.e2e.server import ServerProcess

_spec = importlib.util.spec_from_file_location(
    "verifier_load", Path(__file__).resolve().parents[2] / "bench" / "verifier_load.py")
load = importlib.util.module_from_spec(_spec)
sys.modules["verifier_load"] = load  # dataclasses look their module up
_spec.loader.exec_module(load)


async def test_load_small_queue_gives_429s_not_errors(fast_store):
    with ServerProcess(fast_store, "local", extra_args=["--max-inflight", "4",
                                                        "--queue-size", "4"]) as srv:
        report = await load.run_load(srv.url, n=200, concurrency=64)
        metrics = __import__("urllib.request").request.urlopen(srv.url + "/metrics").read().decode()
    assert report.answered == 200, report.summary()
    assert not report.errors and not report.wrong_verdicts and not report.internal_errors, \
        report.summary()
    assert report.rejected_429 > 0, "a queue of 8 under 64 clients must refuse some requests"
    assert "verifier_rejected_total" in metrics
