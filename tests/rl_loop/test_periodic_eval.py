"""Periodic held-out evaluation and online DPO pairing in the controller, with fakes (fast)."""
from __future__ import annotations

import asyncio

import pytest

from rl_loop.periodic_eval import PeriodicEval
from rl_loop.rollouts import PromptInfo
from tests.rl_loop.test_controller import HashRewards, Metrics, _controller, _drive, _trained


class LoggingMetrics(Metrics):
    pass


def _with_eval(c, every=2):
    from rl_loop.config import EvalConfig

    prompts = {p: PromptInfo(p, "stdio", [7, 7], "") for p in ("h1", "h2", "h3")}
    c.evaluator = PeriodicEval(EvalConfig(every_steps=every, samples=4), prompts, HashRewards(zero_every=1000))
    return c


def test_eval_every_n_versions_is_logged_and_does_not_change_training(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    plain = _controller(tmp_path / "a", 1)
    m_plain = asyncio.run(_drive(plain, 5))
    c = _with_eval(_controller(tmp_path / "b", 1))
    m = Metrics()
    c.evaluator.metrics = m
    m_train = asyncio.run(_drive(c, 5))
    # versions the generators surely held: 0..3 (staleness 1; 4 only if the producer got to
    # step 5 before the stop); evaluations at the multiples of 2 among them
    assert sorted(c.evaluator.results)[:2] == [0, 2] and set(c.evaluator.results) <= {0, 2, 4}
    assert [s for s, _ in m.rows] == sorted(c.evaluator.results)
    for _, vals in m.rows:
        assert vals["eval/problems"] == 3
        assert vals["eval/pass_at_1_ci_low"] <= vals["eval/pass_at_1"] <= vals["eval/pass_at_1_ci_high"]
    # the fake generator's completions carry the version: each evaluation really sampled that version
    # training saw exactly what a run without evaluation saw
    assert _trained(c, m_train) == _trained(plain, m_plain)


def test_online_dpo_trains_best_and_worst_of_each_group(tmp_path):
    c = _controller(tmp_path, 2, algorithm__name="online_dpo", model__reference_path="ref")
    seen = []
    orig = c.trainer.train

    async def train(seqs, version, recompute):
        seen.append(seqs)
        return await orig(seqs, version, recompute)

    c.trainer.train = train
    asyncio.run(_drive(c, 3))
    for seqs in seen:
        assert len(seqs) % 2 == 0 and seqs
        for chosen, rejected in zip(seqs[::2], seqs[1::2]):
            assert (chosen.dpo_role, rejected.dpo_role) == (1, -1)
            assert chosen.prompt_ids == rejected.prompt_ids


def test_eval_config_validation():
    from rl_loop.config import ConfigError, load_config

    cfg = load_config(None, ["eval.every_steps=5", "eval.samples=16", "trainer.ppo_epochs=2",
                             "trainer.mini_batches=4", "trainer.behaviour_logprobs=recomputed"])
    assert cfg.eval.every_steps == 5 and cfg.trainer.ppo_epochs == 2
    with pytest.raises(ConfigError, match="behaviour_logprobs"):
        load_config(None, ["trainer.behaviour_logprobs=trainer"])
    with pytest.raises(ConfigError, match="ppo_epochs"):
        load_config(None, ["trainer.ppo_epochs=0"])


def test_plot_draws_the_heldout_curve(tmp_path):
    pytest.importorskip("matplotlib")
    from rl_loop.metrics import MetricsWriter
    from rl_loop.plot import plot_run

    with MetricsWriter(tmp_path, tensorboard=False) as m:
        for v in (0, 5, 10):
            m.log(v, {"eval/pass_at_1": 0.1 + 0.01 * v, "eval/pass_at_1_ci_low": 0.05, "eval/pass_at_1_ci_high": 0.3})
            m.log(v + 1, {"reward/mean": 0.2})
    names = {p.name for p in plot_run(tmp_path)}
    assert "heldout.png" in names and "reward.png" in names
