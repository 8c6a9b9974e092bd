"""Kill -9 a running job, restart it, and check it carries on exactly where its snapshot was.

The job (real vLLM, 2-rank FSDP trainer, verifier) runs in its own session; once it has
committed its first checkpoint the whole process group gets SIGKILL, as if the machine
had been lost. The restarted job must resume from the last complete checkpoint and:
* issue the same prompt sequence as an uninterrupted run (prompts.jsonl = the seeded
  sampler's sequence, no index duplicated or skipped across the crash);
* continue the version counter (steps and versions 1..N, each once);
* keep one metrics record per step.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from tests.rl_loop.rl_fixtures import PROBLEMS, REPO, job_env, make_store, need_ml, tiny_sft_model, train_cmd

pytestmark = [pytest.mark.slow, pytest.mark.ml, pytest.mark.timeout(900)]


def _wait_for_checkpoint(proc, ckpt_dir, timeout_s=600):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if (ckpt_dir / "LATEST").is_file():
            return
        if proc.poll() is not None:
            raise AssertionError(f"job exited ({proc.returncode}) before its first checkpoint")
        time.sleep(0.5)
    raise AssertionError("no checkpoint in time")


def test_sigkill_then_resume(tmp_path):
    need_ml()
    from rl_loop.metrics import read_metrics
    from rl_loop.rollouts import PromptSampler

    store = make_store(tmp_path)
    tiny_sft_model(store)
    run = tmp_path / "run"
    cmd = train_cmd(run, store, "trainer.total_steps=3", "checkpoint.every_steps=1")
    log = open(tmp_path / "first.log", "wb")
    proc = subprocess.Popen(cmd, cwd=REPO, env=job_env(), stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        _wait_for_checkpoint(proc, run / "checkpoints")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the job, its trainer ranks and vLLM processes
        proc.wait()
    first_ckpt = (run / "checkpoints" / "LATEST").read_text().strip()
    issued_before_kill = len((run / "prompts.jsonl").read_text().splitlines())

    done = subprocess.run(cmd, cwd=REPO, env=job_env(), capture_output=True, text=True, timeout=840)
    assert done.returncode == 0, done.stderr[-4000:]
    summary = json.loads((run / "summary.json").read_text())
    assert summary["resumed_from"] and summary["resumed_from"].endswith(first_ckpt)

    # the prompt sequence: exactly the seeded sampler's, no gaps, no repeats
    prompts = [json.loads(x) for x in (run / "prompts.jsonl").read_text().splitlines()]
    sampler = PromptSampler(PROBLEMS, seed=0)
    assert [p["index"] for p in prompts] == list(range(len(prompts)))
    assert [p["problem_id"] for p in prompts] == [sampler.problem_at(i) for i in range(len(prompts))]
    assert len(prompts) >= min(issued_before_kill, 6)

    steps = [json.loads(x) for x in (run / "steps.jsonl").read_text().splitlines()]
    assert [s["step"] for s in steps] == [1, 2, 3]
    assert [s["version"] for s in steps] == [1, 2, 3]
    assert summary["version"] == 3
    assert [r["step"] for r in read_metrics(run)] == [1, 2, 3]
