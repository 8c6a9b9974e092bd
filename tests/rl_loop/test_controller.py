"""Controller scheduling with fakes at its seams (generator, trainer, rewards): fast, no processes.

Checks the properties the real e2e run cannot pin down deterministically:
* max_staleness=0 is on-policy: every trained token was sampled by the current version;
* max_staleness=1 lets generation run ahead, and never trains on anything staler;
* internal errors drop samples (never reward 0); groups of equal rewards are refilled.
"""
from __future__ import annotations

import asyncio

import pytest

from rl_loop.config import load_config
from rl_loop.controller import Controller
from rl_loop.generator import Completion, GenResult
from rl_loop.rewards import RewardStats
from rl_loop.rollouts import PromptInfo, PromptSampler


class FakeGen:
    def __init__(self):
        self.version, self.tokens_generated, self.generate_s = 0, 0, 0.0

    async def generate(self, reqs):
        await asyncio.sleep(0)
        out = []
        for r in reqs:
            comps = [Completion([1, 2], [-0.1, -0.2], [self.version] * 2, "stop", f"s{k}") for k in range(r.n)]
            out.append(GenResult(r.key, r.prompt_ids, comps, self.version))
        return out

    async def load_weights(self, path, version):
        self.version = version
        return {}


class FakeTrainer:
    def __init__(self):
        self.seen = []

    async def train(self, seqs, version, recompute):
        self.seen.append((version, sorted({v for s in seqs for v in s.versions}), len(seqs)))
        await asyncio.sleep(0.01)
        return {"loss": 0.0, "train_s": 0.01, "train_tokens": 2 * len(seqs)}

    async def export_weights(self, path):
        return {"bytes": 1}


class FakeRewards:
    """Rewards by sample text; prompt index 1 always hits an internal error on sample 0."""

    def __init__(self, equal_every=3):
        self.stats = RewardStats()
        self.equal_every = equal_every

    async def score(self, pid, kind, texts, index=None):
        await asyncio.sleep(0)
        return [float(k % 2) for k in range(len(texts))]


class Metrics:
    def __init__(self):
        self.rows = []

    def log(self, step, vals):
        self.rows.append((step, vals))

    def log_histogram(self, *a):
        pass


def _controller(tmp_path, staleness, steps=100):
    cfg = load_config(None, [f"staleness.max_staleness={staleness}", "trainer.batch_size_prompts=2",
                             "generation.n_samples=4", "trainer.micro_batch_size_seqs=2",
                             f"logging.run_dir={tmp_path}", f"checkpoint.dir={tmp_path}/ckpt",
                             f"trainer.total_steps={steps}", "checkpoint.every_steps=1000", "algorithm.name=grpo"])
    c = Controller(cfg, client=object())
    c.prompts = {p: PromptInfo(p, "stdio", [9, 9], "") for p in ("a", "b", "c")}
    c.sampler = PromptSampler(list(c.prompts), 0)
    c.rewards = FakeRewards()
    c.generators = [FakeGen()]
    c.trainer = FakeTrainer()
    from rl_loop.weight_sync import FileWeightSync

    c.sync = FileWeightSync(c.trainer, c.generators, sync_dir=tmp_path)
    c.prompt_log, c.step_log = tmp_path / "prompts.jsonl", tmp_path / "steps.jsonl"
    return c


async def _drive(c, steps):
    import time

    c._t_start = time.perf_counter()
    m = Metrics()
    prod = asyncio.create_task(c._producer(c.generators[0]))
    for _ in range(steps):
        await c._train_step(m)
    c._stop = True
    async with c._cond:
        c._cond.notify_all()
    await prod
    return m


@pytest.mark.parametrize("staleness", [0, 1])
def test_staleness_bound_holds(tmp_path, staleness):
    c = _controller(tmp_path, staleness)
    m = asyncio.run(_drive(c, 4))
    assert [s[0] for s in c.trainer.seen] == [0, 1, 2, 3]
    for version, token_versions, n in c.trainer.seen:
        assert n == 8
        assert all(version - v <= staleness for v in token_versions)
        if staleness == 0:
            assert token_versions == [version]
    assert c.version == 4 and c.generators[0].version == 4
    # issuance bound: never more useful prompts out than (version + s + 1) batches
    assert c.issued - c.wasted <= (c.version + staleness + 1) * c.B
    assert [r[0] for r in m.rows] == [1, 2, 3, 4]


def test_ie_samples_are_dropped_not_zeroed(tmp_path):
    c = _controller(tmp_path, 1)

    class IERewards(FakeRewards):
        async def score(self, pid, kind, texts, index=None):
            return [None, 1.0, 0.0, None]  # two internal errors

    c.rewards = IERewards()
    asyncio.run(_drive(c, 2))
    for _, _, n in c.trainer.seen:
        assert n == 4  # 2 groups x the 2 judged samples; the IE ones are gone


def test_all_equal_groups_are_refilled(tmp_path):
    c = _controller(tmp_path, 0)

    class Alternating(FakeRewards):
        async def score(self, pid, kind, texts, index=None):
            self.calls = getattr(self, "calls", 0) + 1
            return [0.0] * len(texts) if self.calls % 2 else [float(k % 2) for k in range(len(texts))]

    c.rewards = Alternating()
    asyncio.run(_drive(c, 2))
    assert c.filter.dropped["all_fail"] >= 2
    assert c.wasted >= 2 and all(n == 8 for _, _, n in c.trainer.seen)
