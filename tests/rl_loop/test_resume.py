"""Determinism end to end: the same seed gives the same run, and kill -9 + resume changes nothing.

Real vLLM generator, real 2-rank FSDP trainer, real verifier, tiny model, max_staleness 1
(asynchronous: the generator works on step k+1 while the trainer trains step k). Two jobs:
* an uninterrupted run of 4 steps;
* the same job SIGKILLed (whole process group, as if the machine was lost) at a random
  moment after its first checkpoint, then started again: it resumes from the newest
  complete checkpoint.
Both must train the same batches (steps.jsonl), issue the same candidates (prompts.jsonl),
log the same metrics (timings aside) and end with bit-identical weights.
"""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time

import pytest

from tests.rl_loop.rl_fixtures import REPO, job_env, make_store, need_ml, tiny_sft_model, train_cmd

pytestmark = [pytest.mark.slow, pytest.mark.ml, pytest.mark.timeout(1500)]
STEPS = 4


def _wait_for_checkpoint(proc, ckpt_dir, timeout_s=600):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if (ckpt_dir / "LATEST").is_file():
            return
        if proc.poll() is not None:
            raise AssertionError(f"job exited ({proc.returncode}) before its first checkpoint")
        time.sleep(0.2)
    raise AssertionError("no checkpoint in time")


def _descendants(root: int) -> set[int]:
    """Every live process below `root`, whatever session or process group it moved to."""
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = open(f"/proc/{d}/stat").read()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(d))
    out, todo = set(), [root]
    while todo:
        for c in children.get(todo.pop(), []):
            out.add(c)
            todo.append(c)
    return out


def _alive(pid: int) -> bool:
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def _outcome(run):
    from safetensors.torch import load_file

    from rl_loop.metrics import read_metrics

    rows = [{k: v for k, v in r.items() if not k.startswith(("time", "perf/"))}
            for r in read_metrics(run)]
    ckpt = run / "checkpoints" / (run / "checkpoints" / "LATEST").read_text().strip()
    return {
        "steps": (run / "steps.jsonl").read_text().splitlines(),
        "prompts": (run / "prompts.jsonl").read_text().splitlines(),
        "metrics": rows,
        "weights": load_file(str(ckpt / "model.safetensors")),
        "summary": json.loads((run / "summary.json").read_text()),
    }


def test_same_seed_same_run_and_sigkill_resume_is_invisible(tmp_path):
    need_ml()
    store = make_store(tmp_path)
    tiny_sft_model(store)
    over = (f"trainer.total_steps={STEPS}", "checkpoint.every_steps=1", "checkpoint.keep=10")

    ref = tmp_path / "ref"
    done = subprocess.run(train_cmd(ref, store, *over), cwd=REPO, env=job_env(), capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]

    run = tmp_path / "killed"
    log = open(tmp_path / "first.log", "wb")
    proc = subprocess.Popen(train_cmd(run, store, *over), cwd=REPO, env=job_env(), stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    delay = random.Random().uniform(0.0, 4.0)
    try:
        _wait_for_checkpoint(proc, run / "checkpoints")
        time.sleep(delay)  # a random point after the first checkpoint: not a timing assertion
        family = _descendants(proc.pid)
        assert len(family) >= 3, family  # torchrun + 2 ranks at least, plus vLLM's engine
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the job's process group, as a scheduler would
        proc.wait()
    # clean death: every process the job started (ranks live in process groups of their
    # own) is gone within 5 s
    deadline = time.monotonic() + 5.0
    while any(_alive(p) for p in family) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in family if _alive(p)], "processes outlived the killed job"
    killed_at = (run / "checkpoints" / "LATEST").read_text().strip()
    done = subprocess.run(train_cmd(run, store, *over), cwd=REPO, env=job_env(), capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]

    a, b = _outcome(ref), _outcome(run)
    if killed_at != f"step_{STEPS:06d}":  # killed before the end: the restart resumed
        assert b["summary"]["resumed_from"].endswith(killed_at), (delay, b["summary"])
    assert a["summary"]["version"] == b["summary"]["version"] == STEPS
    assert [json.loads(s)["step"] for s in b["steps"]] == list(range(1, STEPS + 1))
    assert a["steps"] == b["steps"], f"killed {delay:.2f} s after the first checkpoint"
    assert a["prompts"] == b["prompts"]
    assert a["metrics"] == b["metrics"]
    assert a["weights"].keys() == b["weights"].keys()
    assert all(a["weights"][k].equal(b["weights"][k]) for k in a["weights"]), "weights differ"
    # the weight file the killed job left on /dev/shm was swept; both runs left none
    import hashlib

    from rl_loop.weight_sync import default_sync_dir

    for d in (ref, run):
        tag = hashlib.sha1(str(d.resolve()).encode()).hexdigest()[:12]
        assert not list(default_sync_dir().glob(f"rl_loop_weights_{tag}_*")), f"weight files of {d} left behind"
