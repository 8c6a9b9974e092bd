"""The controller: the only active part of an RL run (RLAX principle #1, LlamaRL section 5).

It owns the prompt sampler, the policy version counters, the queues between stages and the
checkpoints. Generators (vLLM), the verifier and the trainer ranks only answer its calls.

Data flow, as three kinds of asyncio task over bounded state:

    producer (one per generator): next prompt indices -> generator.generate -> judge tasks
    judge (one per prompt):       verifier rewards -> drop IE samples -> dynamic filter -> ready
    train loop (this coroutine):  staleness gate -> batch of B groups -> advantages -> trainer
                                  -> version += 1 -> weight sync every reload_every versions
                                  -> checkpoint every every_steps

Overlap and staleness: a producer may have at most (v + max_staleness + 1) * B useful
groups issued, v being the newest version the generators can see. With max_staleness = 0
that is exactly one batch per version: the same code runs synchronous on-policy.
Groups lost to filtering or the gate are "wasted" and free their slot for a refill.

Resume: a checkpoint holds the controller snapshot (cursor, versions, prompt indices in
flight, judged groups not yet trained, counters). On restart in-flight indices are issued
again first, then the cursor continues, so prompts.jsonl lists the same sequence as an
uninterrupted run (RLAX principles #2 and #3).
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import time
from collections import Counter
from pathlib import Path

import torch

from rl_loop.checkpoint import CheckpointManager
from rl_loop.config import RLConfig
from rl_loop.filtering import DynamicFilter
from rl_loop.generator import Generator, GeneratorSettings, GenRequest, GenResult
from rl_loop.rewards import RewardFn, make_client
from rl_loop.rollouts import Group, PromptSampler, Sample, load_prompts
from rl_loop.staleness import StalenessGate
from rl_loop.trainer import Sequence, Trainer, TrainerSettings
from rl_loop.weight_sync import FileWeightSync

log = logging.getLogger("rl_loop.controller")
PROBE_COMPLETION = "```python\nprint(int(input()) * 2)\n```"


class ControllerError(RuntimeError):
    pass


def _truncate_jsonl(path: Path, keep) -> None:
    """Keep only the records `keep(record)` accepts (used on resume), atomically."""
    if not path.exists():
        return
    lines = [ln for ln in path.read_text().splitlines() if ln.strip() and keep(json.loads(ln))]
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(ln + "\n" for ln in lines))
    os.replace(tmp, path)


class Controller:
    def __init__(self, cfg: RLConfig, client=None) -> None:
        self.cfg = cfg
        self.run_dir = Path(cfg.logging.run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.spec = cfg.algorithm_spec()
        self.B = cfg.trainer.batch_size_prompts
        self.s = cfg.staleness.max_staleness
        self.client = client
        # state (all of it goes into the snapshot)
        self.step = 0
        self.version = 0  # trainer version = optimizer steps taken
        self.issue_version = 0  # newest version the generators hold (gates issuance)
        self.cursor = 0
        self.issued = 0
        self.wasted = 0
        self.pending: set[int] = set()
        self.reissue: list[int] = []
        self.ready: list[Group] = []
        self.filter = DynamicFilter(enabled=cfg.filtering.dynamic)
        self.gate = StalenessGate(self.s)
        self.samples_seen = Counter()
        self._cond = asyncio.Condition()
        self._stop = False
        self._judges: set[asyncio.Task] = set()
        self._judged_since_step = 0
        self._reward_sum = [0.0, 0]
        self._error: BaseException | None = None

    # ---- set-up --------------------------------------------------------------------------
    def _build(self) -> None:
        from transformers import AutoTokenizer

        c = self.cfg
        self.tokenizer = AutoTokenizer.from_pretrained(c.model.path)
        max_prompt = c.model.max_model_len_tokens - c.generation.max_new_tokens
        self.prompts, skipped = load_prompts(c.data, self.tokenizer, max_prompt)
        for msg in skipped:
            log.warning("skipping problem %s", msg)
        self.sampler = PromptSampler(list(self.prompts), c.trainer.seed)
        if self.client is None:
            self.client = make_client(c.rewards.mode, c.data.store_uri, c.rewards.backend, c.rewards.verifier_url)
        self.rewards = RewardFn(self.client, c.data.language, c.rewards.reward_rule, c.rewards.ie_retries,
                                c.rewards.timeout_s)
        g = c.generation
        self.generators = [
            Generator(GeneratorSettings(
                model_path=c.model.path, dtype=c.model.dtype, max_model_len_tokens=c.model.max_model_len_tokens,
                max_new_tokens=g.max_new_tokens, temperature=g.temperature, top_p=g.top_p, seed=c.trainer.seed + i,
                kv_cache_gib=g.kv_cache_gib, gpu_memory_utilization=g.gpu_memory_utilization,
            ))
            for i in range(g.num_generators)
        ]
        t = c.trainer
        self.trainer = Trainer(TrainerSettings(
            model_path=c.model.path, world_size=t.world_size, dtype=c.model.dtype, lr=t.lr, betas=tuple(t.betas),
            weight_decay=t.weight_decay, grad_clip=t.grad_clip, micro_batch_size_seqs=t.micro_batch_size_seqs,
            seed=t.seed, ref_path=c.model.reference_path, spec=self.spec.to_dict(),
            log_path=str(self.run_dir / "trainer.log"), start_timeout_s=t.start_timeout_s,
        ))
        # One sync file per run dir: a run restarted after SIGKILL reuses (overwrites) it.
        tag = hashlib.sha1(str(self.run_dir.resolve()).encode()).hexdigest()[:12]
        self.sync = FileWeightSync(self.trainer, self.generators, run_tag=tag)
        self.ckpt = CheckpointManager(c.checkpoint.dir, c.checkpoint.keep)
        self.prompt_log = self.run_dir / "prompts.jsonl"
        self.step_log = self.run_dir / "steps.jsonl"

    # ---- snapshot --------------------------------------------------------------------------
    def snapshot(self) -> dict:
        return {
            "step": self.step, "version": self.version, "cursor": self.cursor, "issued": self.issued,
            "wasted": self.wasted, "in_flight": sorted(self.pending | set(self.reissue)),
            "ready": [g.to_json() for g in self.ready], "filter": self.filter.state_dict(),
            "gate": self.gate.state_dict(), "rewards": self.rewards.stats.state_dict(),
            "seed": self.cfg.trainer.seed, "torch_rng": torch.get_rng_state().tolist(),
            "problem_ids": self.sampler.ids,
        }

    def restore(self, snap: dict) -> None:
        if snap["problem_ids"] != self.sampler.ids or snap["seed"] != self.cfg.trainer.seed:
            raise ControllerError("checkpoint was written for another problem set or seed; "
                                  "use a fresh checkpoint.dir or checkpoint.resume=false")
        self.step, self.version, self.cursor = snap["step"], snap["version"], snap["cursor"]
        self.issue_version = self.version
        self.issued, self.wasted = snap["issued"], snap["wasted"]
        self.reissue = list(snap["in_flight"])
        self.ready = [Group.from_json(g) for g in snap["ready"]]
        self.filter.load_state_dict(snap["filter"])
        self.gate.load_state_dict(snap["gate"])
        self.rewards.stats.load_state_dict(snap["rewards"])
        torch.set_rng_state(torch.tensor(snap["torch_rng"], dtype=torch.uint8))
        _truncate_jsonl(self.prompt_log, lambda r: r["index"] < self.cursor)
        _truncate_jsonl(self.step_log, lambda r: r["step"] <= self.step)

    # ---- producer / judge ---------------------------------------------------------------------
    def _budget(self) -> int:
        """How many more prompts may be issued now (the staleness-aware issuance bound)."""
        return (self.issue_version + self.s + 1) * self.B - (self.issued - self.wasted)

    def _take(self, n: int) -> list[int]:
        out = []
        while self.reissue and len(out) < n:
            out.append(self.reissue.pop(0))
        with self.prompt_log.open("a") as f:
            while len(out) < n:
                i = self.cursor
                self.cursor += 1
                self.issued += 1
                f.write(json.dumps({"index": i, "problem_id": self.sampler.problem_at(i)}) + "\n")
                out.append(i)
        self.pending.update(out)
        return out

    async def _producer(self, gen: Generator) -> None:
        per_call = self.cfg.generation.prompts_per_call or self.B
        n = self.cfg.generation.n_samples
        while not self._stop:
            async with self._cond:
                await self._cond.wait_for(lambda: self._stop or self.reissue or self._budget() > 0)
                if self._stop:
                    return
                k = len(self.reissue) if self.reissue else min(per_call, self._budget())
                idx = self._take(min(k, per_call))
            reqs = [GenRequest(i, self.prompts[self.sampler.problem_at(i)].prompt_ids, n,
                               self.sampler.sampling_seed(i)) for i in idx]
            results = await gen.generate(reqs)
            for res in results:
                task = asyncio.create_task(self._judge(res))
                self._judges.add(task)
                task.add_done_callback(self._judge_done)

    def _judge_done(self, task: asyncio.Task) -> None:
        """A judge that raised (a bad request, a bug) must stop the run, not stall it."""
        self._judges.discard(task)
        if not task.cancelled() and task.exception() is not None and self._error is None:
            self._error = task.exception()

    async def _judge(self, res: GenResult) -> None:
        pid = self.sampler.problem_at(res.key)
        info = self.prompts[pid]
        texts = [c.text for c in res.completions]
        rewards = await self.rewards.score(pid, info.kind, texts)
        group = Group(res.key, pid, res.prompt_ids)
        for c, r in zip(res.completions, rewards):
            if r is None:  # internal error after retries: dropped, never scored 0
                continue
            group.samples.append(Sample(c.token_ids, c.logprobs, c.versions, c.text, r))
            self._reward_sum[0] += r
            self._reward_sum[1] += 1
        async with self._cond:
            self.pending.discard(res.key)
            self._judged_since_step += 1
            if self.filter.keep(group.rewards):
                self.ready.append(group)
            else:
                self.wasted += 1
            self._cond.notify_all()

    # ---- training ------------------------------------------------------------------------------
    async def _next_batch(self) -> list[Group]:
        limit = self.cfg.generation.max_groups_per_step or 50 * self.B
        async with self._cond:
            while True:
                if self._error is not None:
                    raise ControllerError("judging a group failed") from self._error
                fresh = []
                for g in self.ready:
                    if self.gate.accept(self.version, g.versions):
                        fresh.append(g)
                    else:
                        self.wasted += 1
                self.ready = fresh
                if len(self.ready) >= self.B:
                    self.ready.sort(key=lambda g: g.index)
                    batch, self.ready = self.ready[: self.B], self.ready[self.B:]
                    self._cond.notify_all()
                    return batch
                if self._judged_since_step > limit:
                    raise ControllerError(
                        f"{self._judged_since_step} groups judged without filling a batch of {self.B}: "
                        f"filter stats {self.filter.stats()}; the policy gets every problem all right or all "
                        "wrong (try other problems, more samples, or filtering.dynamic=false)")
                self._cond.notify_all()
                try:  # wake up now and then to notice a failed judge task
                    await asyncio.wait_for(self._cond.wait(), timeout=5.0)
                except asyncio.TimeoutError:
                    pass

    def _sequences(self, batch: list[Group]) -> list[Sequence]:
        from rl_loop.algorithms import compute_advantages

        rewards = torch.tensor([r for g in batch for r in g.rewards], dtype=torch.float64)
        gids = torch.tensor([k for k, g in enumerate(batch) for _ in g.samples])
        adv = compute_advantages(rewards, gids, self.spec.advantage, self.spec.adv_eps).tolist()
        seqs, k = [], 0
        for g in batch:
            for s in g.samples:
                seqs.append(Sequence(g.prompt_ids, s.token_ids, s.logprobs, s.versions, float(adv[k])))
                k += 1
        return seqs

    async def _train_step(self, metrics) -> None:
        t_step = time.perf_counter()
        gen_tok0 = sum(g.tokens_generated for g in self.generators)
        gen_s0 = sum(g.generate_s for g in self.generators)
        rew_s0 = self.rewards.stats.seconds
        batch = await self._next_batch()
        t_wait = time.perf_counter() - t_step
        seqs = self._sequences(batch)
        stats = await self.trainer.train(seqs, self.version, self.cfg.trainer.recompute_logprobs)
        self.version += 1
        self.step += 1
        t_sync = 0.0
        if self.version % self.cfg.generation.reload_every == 0:
            rec = await self.sync.push(self.version)
            t_sync = rec.total_s
        async with self._cond:
            self.issue_version = self.generators[0].version
            self._judged_since_step = 0
            self._cond.notify_all()
        with self.step_log.open("a") as f:
            f.write(json.dumps({"step": self.step, "version": self.version,
                                "prompt_indices": [g.index for g in batch]}) + "\n")
        t_ckpt = 0.0
        if self.step % self.cfg.checkpoint.every_steps == 0 or self._last_step():
            t_ckpt = await self.checkpoint()
        self._log(metrics, batch, stats, t_step, t_wait, t_sync, t_ckpt, gen_tok0, gen_s0, rew_s0)

    def _last_step(self) -> bool:
        budget = self.cfg.trainer.time_budget_s
        over = budget is not None and time.perf_counter() - self._t_start > budget
        return self.step >= self.cfg.trainer.total_steps or over

    async def checkpoint(self) -> float:
        t0 = time.perf_counter()
        staging = self.ckpt.staging_dir(self.step)
        await self.trainer.save(str(staging))
        self.ckpt.commit(self.step, self.snapshot())
        return time.perf_counter() - t0

    def _log(self, metrics, batch, stats, t_step, t_wait, t_sync, t_ckpt, gen_tok0, gen_s0, rew_s0) -> None:
        rewards = [r for g in batch for r in g.rewards]
        step_s = time.perf_counter() - t_step
        gen_tok = sum(g.tokens_generated for g in self.generators) - gen_tok0
        gen_s = sum(g.generate_s for g in self.generators) - gen_s0
        vals = {
            "reward/mean": sum(rewards) / len(rewards),
            "reward/pass_rate": sum(r >= 1.0 for r in rewards) / len(rewards),
            "reward/all_judged_mean": self._reward_sum[0] / max(self._reward_sum[1], 1),
            "reward/ie_dropped": self.rewards.stats.ie_dropped,
            "reward/ie_retried": self.rewards.stats.ie_retried,
            "version": self.version,
            "prompts/issued": self.issued,
            "prompts/wasted": self.wasted,
            "perf/gen_tokens_per_s": gen_tok / gen_s if gen_s > 0 else 0.0,
            "perf/gen_tokens_per_wall_s": gen_tok / step_s,
            "perf/train_tokens_per_s": stats.get("train_tokens", 0) / max(stats.get("train_s", 1e-9), 1e-9),
            "perf/tokens_per_s": stats.get("train_tokens", 0) / step_s,
            "time/step_s": step_s, "time/wait_for_data_s": t_wait, "time/train_s": stats.get("train_s", 0.0),
            "time/recompute_s": stats.get("recompute_s", 0.0), "time/weight_sync_s": t_sync,
            "time/generation_s": gen_s, "time/reward_s": self.rewards.stats.seconds - rew_s0,
            "time/checkpoint_s": t_ckpt,
        }
        vals.update({f"loss/{k}": v for k, v in stats.items() if k not in ("train_s", "recompute_s")})
        vals.update(self.filter.stats())
        vals.update(self.gate.stats())
        metrics.log(self.step, vals)
        metrics.log_histogram(self.step, "staleness/histogram", dict(self.gate.histogram))
        self._last_vals = vals

    # ---- run --------------------------------------------------------------------------------------
    async def run(self) -> dict:
        from tqdm import tqdm

        from rl_loop.metrics import MetricsWriter

        self._build()
        resume_from = self.ckpt.latest() if self.cfg.checkpoint.resume else None
        t0 = time.perf_counter()
        gen_starts = [asyncio.to_thread(g.start) for g in self.generators]
        info = await asyncio.gather(asyncio.to_thread(self.trainer.start), *gen_starts)
        startup_s = time.perf_counter() - t0
        probe = self._probe_sequence()
        summary = {"startup_s": startup_s, "trainer": info[0], "resumed_from": None}
        try:
            if resume_from is not None:
                snap = CheckpointManager.read_snapshot(resume_from)
                await self.trainer.load(str(resume_from))
                for g in self.generators:
                    await g.load_weights(str(resume_from / "model.safetensors"), snap["version"])
                self.restore(snap)
                summary["resumed_from"] = str(resume_from)
            summary["probe_before"] = await asyncio.to_thread(self.generators[0].score_sync, *probe)
            metrics = MetricsWriter(self.run_dir, tensorboard=self.cfg.logging.tensorboard,
                                    resume_from_step=self.step if resume_from is not None else None)
            (self.run_dir / "config.yaml").write_text(self.cfg.to_yaml())
            self._t_start = time.perf_counter()
            producers = [asyncio.create_task(self._producer(g)) for g in self.generators]
            bar = tqdm(total=self.cfg.trainer.total_steps, initial=self.step, desc="rl-loop", unit="step",
                       disable=os.environ.get("RL_LOOP_NO_TQDM") == "1")
            try:
                while not self._last_step():
                    step_task = asyncio.create_task(self._train_step(metrics))
                    await self._watch(step_task, producers)
                    v = self._last_vals
                    bar.set_postfix(reward=f"{v['reward/mean']:.2f}", loss=f"{v.get('loss/loss', 0):.3g}",
                                    sync=f"{v['time/weight_sync_s']:.1f}s")
                    bar.update(1)
            finally:
                bar.close()
                metrics.close()
                self._stop = True
                async with self._cond:
                    self._cond.notify_all()
                await asyncio.gather(*producers, return_exceptions=True)
                for t in list(self._judges):
                    t.cancel()
            summary["probe_after"] = await asyncio.to_thread(self.generators[0].score_sync, *probe)
            summary.update(step=self.step, version=self.version, issued=self.issued, wasted=self.wasted,
                           sync_s=[r.total_s for r in self.sync.history])
            (self.run_dir / "summary.json").write_text(json.dumps(summary, indent=2))
            return summary
        finally:
            await self.shutdown()

    async def _watch(self, step_task: asyncio.Task, producers: list[asyncio.Task]) -> None:
        """Wait for a train step; a producer that crashed (generator died) fails the run."""
        while True:
            done, _ = await asyncio.wait([step_task, *producers], return_when=asyncio.FIRST_COMPLETED)
            if step_task in done:
                step_task.result()
                return
            for p in producers:
                if p.done() and p.exception() is not None:
                    step_task.cancel()
                    raise ControllerError("a generator failed") from p.exception()

    def _probe_sequence(self) -> tuple[list[int], list[int]]:
        """A fixed (prompt, completion) whose log-prob under the generator shows weight updates."""
        first = self.prompts[self.sampler.ids[0]].prompt_ids
        comp = self.tokenizer(PROBE_COMPLETION, add_special_tokens=False)["input_ids"]
        return list(first), list(comp)

    async def shutdown(self) -> None:
        self.trainer.stop()
        for g in self.generators:
            g.stop()
        self.sync.cleanup()
        try:
            await self.client.close()
        except Exception:  # noqa: BLE001 - closing is best effort at exit
            pass


async def run_training(cfg: RLConfig) -> dict:
    return await Controller(cfg).run()
