"""Partial rollouts (generation.interruptible): segment versions, the controller with fakes,
and a tiny torch model whose sequences span two versions, checked token by token."""
from __future__ import annotations

import asyncio
import random

import pytest

from rl_loop.generator import Completion, GenRequest, GenResult
from rl_loop.rollouts import PromptSampler
from rl_loop.schedule import StepSchedule
from tests.rl_loop.test_controller import HashRewards, Metrics, _controller, _drive, _h, _trained


@pytest.mark.parametrize("s,r", [(0, 1), (1, 1), (1, 2), (2, 1), (2, 3), (3, 2)])
def test_segment_versions_respect_staleness_and_are_monotone(s, r):
    sched = StepSchedule(PromptSampler(["a"], 0), 2, s, reload_every=r)
    seq = []
    for k in range(12):
        for m in range(6):
            v = sched.segment_version(k, m)
            assert k - s <= v <= k  # staleness bound; never newer than the trainer
            assert v >= sched.gen_version(k) and v % r == 0
            if s >= 1:
                assert v <= sched.gen_version(k + 1)  # produced before step k starts
            seq.append(v)
        assert sched.segment_version(k, 0) == sched.gen_version(k)
    assert seq == sorted(seq)  # generators never go back to an older version
    if s >= 1 and r == 1:
        assert sched.segment_version(5, 1) == 5 - s + 1  # a later segment uses the newer weights


class FakeSegGen:
    """Honours max_tokens; a sample stops early (EOS) when a hash says so. Pure function of
    (seed, sample, version, prompt length), like seeded vLLM."""

    def __init__(self, delay_rng=None):
        self.version, self.tokens_generated, self.generate_s = 0, 0, 0.0
        self.calls = []
        self.delay_rng = delay_rng

    async def generate(self, reqs):
        self.calls.append([(r.key, r.seed, r.max_tokens) for r in reqs])
        await asyncio.sleep(self.delay_rng.random() * 0.002 if self.delay_rng else 0)
        out = []
        for r in reqs:
            comps = []
            for k in range(r.n):
                h = _h(r.seed, k, len(r.prompt_ids), self.version)
                n = 1 if h % 4 == 0 else (r.max_tokens or 6)
                comps.append(Completion([h % 50 + i for i in range(n)], [-0.1 * (self.version + 1)] * n,
                                        [self.version] * n, "stop" if h % 4 == 0 else "length", f"{h % 7}"))
            out.append(GenResult(r.key, r.prompt_ids, comps, self.version))
        return out

    async def load_weights(self, path, version):
        self.version = version
        return {}


def _seg_controller(d, staleness, seed_delay, gens=1):
    c = _controller(d, staleness, rewards=HashRewards(seed_delay), gens=gens, generation__interruptible="true",
                    generation__segment_tokens=2, generation__max_new_tokens=6)
    c.generators = [FakeSegGen(random.Random(seed_delay * 10 + i)) for i in range(gens)]
    c.sync.generators = c.generators
    return c


class SeqTrainer:
    def __init__(self, inner):
        self.inner, self.batches = inner, []

    async def train(self, seqs, version, recompute):
        self.batches.append((version, [(s.completion_ids, s.behaviour_logprobs, s.versions) for s in seqs]))
        return await self.inner.train(seqs, version, recompute)

    def __getattr__(self, name):
        return getattr(self.inner, name)


@pytest.mark.parametrize("staleness", [1, 2])
def test_controller_trains_sequences_spanning_versions_deterministically(tmp_path, staleness):
    runs = []
    for delay in (1, 2):
        d = tmp_path / f"r{delay}"
        d.mkdir()
        c = _seg_controller(d, staleness, delay, gens=2)
        c.trainer = SeqTrainer(c.trainer)
        c.sync.trainer = c.trainer
        m = asyncio.run(_drive(c, 6))
        runs.append((_trained(c, m), c.trainer.batches))
        spanning = 0
        for version, seqs in c.trainer.batches:
            for ids, lps, vers in seqs:
                assert len(ids) == len(lps) == len(vers) <= 6
                assert all(version - staleness <= v <= version for v in vers)
                assert vers == sorted(vers)  # later tokens never older than earlier ones
                # behaviour log-prob of each token is the one its version produced
                assert lps == pytest.approx([-0.1 * (v + 1) for v in vers])
                spanning += len(set(vers)) > 1
        assert spanning > 0  # some sequences really continued under newer weights
    assert runs[0] == runs[1]


def test_partial_rollout_resume_trains_what_an_uninterrupted_run_trains(tmp_path):
    from rl_loop.checkpoint import CheckpointManager

    (tmp_path / "full").mkdir()
    (tmp_path / "cut").mkdir()
    full = _seg_controller(tmp_path / "full", 1, 3)
    m_full = asyncio.run(_drive(full, 6))
    first = _seg_controller(tmp_path / "cut", 1, 4)
    m_first = asyncio.run(_drive(first, 3, checkpoint_at=(3,)))
    again = _seg_controller(tmp_path / "cut", 1, 5)
    snap = CheckpointManager.read_snapshot(again.ckpt.latest())
    for g in again.generators:
        g.version = snap["version"]
    again.restore(snap)
    m_again = asyncio.run(_drive(again, 3))
    m_cut = Metrics()
    m_cut.rows = m_first.rows + m_again.rows
    assert _trained(again, m_cut) == _trained(full, m_full)


# ---------------------------------------------------------------- a real (tiny) model
torch = pytest.importorskip("torch")


class TorchGen:
    """Samples from a bigram TinyLM held per version: log-probs are the real model's."""

    EOS = 0

    def __init__(self, models):
        self.models, self.version = models, 0

    async def generate(self, reqs):
        out = []
        for r in reqs:
            model = self.models[self.version]
            comps = []
            for k in range(r.n):
                g = torch.Generator().manual_seed(r.seed * 31 + k)
                last, ids, lps, reason = r.prompt_ids[-1], [], [], "length"
                for _ in range(r.max_tokens):
                    with torch.no_grad():
                        logp = torch.log_softmax(model.out(torch.tanh(model.emb(torch.tensor([last])))), -1)[0]
                    tok = int(torch.multinomial(logp.exp(), 1, generator=g))
                    ids.append(tok)
                    lps.append(float(logp[tok]))
                    last = tok
                    if tok == self.EOS:
                        reason = "stop"
                        break
                comps.append(Completion(ids, lps, [self.version] * len(ids), reason, ""))
            out.append(GenResult(r.key, r.prompt_ids, comps, self.version))
        return out


def test_tiny_model_sequence_spanning_two_versions_lines_up_token_by_token():
    from rl_loop.algorithms import AlgorithmConfig, LossInputs, compute_loss, resolve_algorithm
    from rl_loop.partial_rollouts import generate_segmented
    from rl_loop.trainer_worker import TrainerRank
    from tests.rl_loop.test_loss import TinyLM

    models = {0: TinyLM(seed=0), 1: TinyLM(seed=1)}  # version 1 = "the weights after an update"
    gen = TorchGen(models)
    done = {}

    async def hold(m):
        gen.version = 0 if m == 0 else 1  # the update lands after the first segment
        return True

    reqs = [GenRequest(i, [3, 4, 5], 3, seed=100 + i) for i in range(4)]
    asyncio.run(generate_segmented(reqs, [gen], 3, 9, hold, lambda i, res: done.__setitem__(i, res)))
    assert sorted(done) == [0, 1, 2, 3]
    seqs = [(res.prompt_ids, c) for res in done.values() for c in res.completions]
    spanning = [c for _, c in seqs if set(c.versions) == {0, 1}]
    assert spanning, "no sequence outlived the first segment"
    for prompt, c in seqs:
        assert c.versions == [0] * min(3, len(c.versions)) + [1] * max(0, len(c.versions) - 3)
        # independent check: each token's behaviour log-prob is its own version's model's log-prob
        full = torch.tensor([prompt + c.token_ids])
        for v in (0, 1):
            with torch.no_grad():
                ref = models[v].token_logprobs(full)[0, len(prompt) - 1:]
            for t, ver in enumerate(c.versions):
                if ver == v:
                    assert c.logprobs[t] == pytest.approx(float(ref[t]), abs=1e-5)
    # The trainer's batch tensors (trainer_worker._pad) keep per-token versions and mu aligned;
    # with the trainer at version 1, the coupled ratio pi_1/mu is 1 exactly on version-1 tokens and
    # not on version-0 ones, and A-3PO's alpha is 1/staleness per token (1 on old, 0 on new tokens).
    msgs = [{"prompt_ids": p, "completion_ids": c.token_ids, "behaviour_logprobs": c.logprobs, "versions": c.versions}
            for p, c in seqs]
    ids, _, mask, mu, ver, T = TrainerRank._pad(None, msgs)
    with torch.no_grad():
        logp = torch.zeros_like(mu)
        for i, msg in enumerate(msgs):
            p, n = len(msg["prompt_ids"]), len(msg["completion_ids"])
            logp[i, :n] = models[1].token_logprobs(ids[i:i + 1, : p + n])[0, p - 1:]
    m = mask.bool()
    new, old = m & (ver == 1), m & (ver == 0)
    ratio = torch.exp(logp - mu)
    assert torch.allclose(ratio[new], torch.ones_like(ratio[new]), atol=1e-5)
    assert (ratio[old] - 1).abs().max() > 1e-2
    sp = resolve_algorithm(AlgorithmConfig(name="a3po"), max_new_tokens=9)
    out = compute_loss(LossInputs(logp.double().requires_grad_(), mu.double(), torch.ones(len(msgs)), mask,
                                  staleness=(1 - ver).clamp(min=0)), sp)
    assert out.stats["a3po_alpha_mean"] == pytest.approx(float(old.sum()) / float(m.sum()))


def test_final_checkpoint_does_not_wait_for_a_version_never_exported(tmp_path):
    # The last steps' later segments use versions up to total_steps; the final checkpoint
    # stores those steps, so the trainer must export them even after its last step.
    c = _controller(tmp_path, 1, generation__interruptible="true", generation__segment_tokens=2,
                    generation__max_new_tokens=6, trainer__total_steps=3)
    c.generators = [FakeSegGen()]
    c.sync.generators = c.generators
    asyncio.run(asyncio.wait_for(_drive(c, 3), 30))
    assert c.step == 3 and c.ckpt.latest() is not None
