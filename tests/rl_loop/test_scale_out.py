"""Scale-out on loopback through the multi-host code path: 2 trainer nodes x 2 generator engines.

Two separate launches, as on two machines: the job itself (`rl-loop train`, which runs node
0's torchrun) and `rl-loop trainer-node distributed.node_rank=1` (node 1's torchrun). Both join
one c10d rendezvous on 127.0.0.1; whichever rank torchrun numbers 0 dials the controller's
fixed command port with the shared key; every rank sends its shards to both engines over
the weight group. The run must complete its steps, with each engine holding the trainer's
weights (the recompute gap on tokens the current version sampled stays at numerical noise).
"""
from __future__ import annotations

import json
import secrets
import socket
import subprocess
import sys

import pytest

from tests.rl_loop.rl_fixtures import REPO, job_env, make_store, need_ml, tiny_sft_model, train_cmd

pytestmark = [pytest.mark.slow, pytest.mark.ml, pytest.mark.timeout(900)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_nodes_two_generators_complete_steps(tmp_path):
    need_ml()
    from rl_loop.metrics import read_metrics

    store = make_store(tmp_path)
    tiny_sft_model(store)
    run = tmp_path / "run"
    dist = ["distributed.nnodes=2", f"distributed.rdzv_endpoint=127.0.0.1:{_free_port()}",
            f"distributed.controller_port={_free_port()}", "distributed.rdzv_id=scale-out-test",
            "generation.num_generators=2", "trainer.world_size=2", "trainer.total_steps=2",
            "checkpoint.every_steps=100"]
    env = dict(job_env(), RL_LOOP_AUTHKEY=secrets.token_hex(16))
    job_cmd = train_cmd(run, store, *dist)
    node1_cmd = [sys.executable, "-m", "rl_loop.cli", "trainer-node", "--config", job_cmd[job_cmd.index("--config") + 1],
                 *job_cmd[job_cmd.index("--config") + 2:], "distributed.node_rank=1"]
    node1_log = open(tmp_path / "node1.log", "wb")
    node1 = subprocess.Popen(node1_cmd, cwd=REPO, env=env, stdout=node1_log, stderr=subprocess.STDOUT)
    try:
        job = subprocess.run(job_cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=840)
        assert job.returncode == 0, job.stderr[-4000:] + (tmp_path / "node1.log").read_text()[-2000:]
        assert node1.wait(timeout=60) == 0, (tmp_path / "node1.log").read_text()[-3000:]
    finally:
        if node1.poll() is None:
            node1.kill()
            node1.wait()
        node1_log.close()

    rows = read_metrics(run)
    assert [r["step"] for r in rows] == [1, 2]
    assert rows[0]["time/weight_export_s"] > 0
    for r in rows:
        if "loss/recompute_gap_mean" in r:
            assert r["loss/recompute_gap_mean"] < 0.01, r
    summary = json.loads((run / "summary.json").read_text())
    # one rank per launch: the rendezvous could only complete with both nodes
    assert summary["trainer"]["world_size"] == 2
    assert summary["weight_sync"]["world"] == 4  # 2 trainer ranks + 2 engines
    assert summary["version"] == 2
