"""Held-out evaluation during training, every `eval.every_steps` policy versions.

The producer calls `maybe_run(version, generator)` whenever the generators hold a new
version (version 0, the starting model, included), so the evaluation uses the very weights
the run generates with, with no extra weight transfer. Each evaluation samples
`eval.samples` completions per problem with the same per-problem seeds as `rl-loop eval`
(problem k of the sorted order: seed + 7919 k), so two points of the curve are paired;
correctness is all_pass whatever the training reward rule, and internal errors are left
out (counted in `eval/ie_dropped`). The result is logged at step = version as
`eval/pass_at_1` with its bootstrap 95 % interval (`eval/pass_at_1_ci_low|high`) and
plotted by `rl-loop plot` (panel "heldout").

Sampling is seeded per request, so an evaluation does not change what the training
requests around it sample; the prefix cache is reset afterwards, as the controller does
after its probe, so the engine's state is what it would have been without it.
"""
from __future__ import annotations

import asyncio
import logging
from typing import Any

from rl_loop.eval_stats import summarise

log = logging.getLogger("rl_loop.eval")


class PeriodicEval:
    def __init__(self, cfg: Any, prompts: dict, rewards: Any) -> None:
        self.cfg = cfg
        self.prompts = prompts
        self.rewards = rewards
        self.done: set[int] = set()
        self.metrics = None  # set by the controller once its MetricsWriter exists
        self.results: dict[int, dict] = {}

    def due(self, version: int) -> bool:
        every = self.cfg.every_steps
        return bool(every) and bool(self.prompts) and version % every == 0 and version not in self.done

    async def maybe_run(self, version: int, generator: Any) -> dict | None:
        if not self.due(version):
            return None
        from rl_loop.evaluate import score_problems

        order = sorted(self.prompts)
        ie0 = self.rewards.stats.ie_dropped
        rewards_of = await score_problems(generator, self.rewards, self.prompts, order, self.cfg.samples,
                                          self.cfg.seed, chunk=len(order), progress=False,
                                          temperature=self.cfg.temperature)
        reset = getattr(generator, "reset_prefix_cache", None)
        if reset is not None:
            await asyncio.to_thread(reset)
        s = summarise({p: r for p, r in rewards_of.items() if r}, ks=(1,), n_boot=2000, seed=self.cfg.seed)
        vals = {"eval/problems": s["problems"], "eval/ie_dropped": self.rewards.stats.ie_dropped - ie0}
        if "pass@1" in s:
            lo, hi = s["pass@1"]["ci95"]
            vals.update({"eval/pass_at_1": s["pass@1"]["mean"], "eval/pass_at_1_ci_low": lo,
                         "eval/pass_at_1_ci_high": hi})
        self.done.add(version)
        self.results[version] = {**vals, "rewards": rewards_of}
        if self.metrics is not None:
            self.metrics.log(version, vals)
        log.info("held-out eval at version %d: %s", version, vals)
        return vals
