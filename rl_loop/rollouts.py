"""The controller's data: problems as prompts, the seeded prompt sampler, rollout groups.

The sampler is a pure function of (seed, index): prompt i is element i mod P of the
permutation of epoch i // P, each epoch shuffled by its own seeded RNG. So the controller
snapshot only needs the cursor (and the indices still in flight) to make a resumed run
issue exactly the prompts an uninterrupted run would (RLAX principle #3).
"""
from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field
from typing import Any


class PromptSampler:
    def __init__(self, problem_ids: list[str], seed: int) -> None:
        if not problem_ids:
            raise ValueError("no problems to sample prompts from (check data.* filters and the store)")
        self.ids = sorted(problem_ids)
        self.seed = seed
        self._perm_cache: dict[int, list[str]] = {}

    def _perm(self, epoch: int) -> list[str]:
        perm = self._perm_cache.get(epoch)
        if perm is None:
            perm = list(self.ids)
            random.Random(f"rl_loop-prompts:{self.seed}:{epoch}").shuffle(perm)
            self._perm_cache = {epoch: perm}
        return perm

    def problem_at(self, index: int) -> str:
        return self._perm(index // len(self.ids))[index % len(self.ids)]

    def sampling_seed(self, index: int) -> int:
        """vLLM seed of prompt `index` (children get seed + k in vLLM)."""
        return (self.seed * 1_000_003 + index * 1_009) % (2**31 - 1)


@dataclass
class Sample:
    token_ids: list[int]
    logprobs: list[float]
    versions: list[int]
    text: str
    reward: float


@dataclass
class Group:
    """All kept samples of one prompt, with their rewards."""

    index: int
    problem_id: str
    prompt_ids: list[int]
    samples: list[Sample] = field(default_factory=list)

    @property
    def rewards(self) -> list[float]:
        return [s.reward for s in self.samples]

    @property
    def versions(self) -> list[int]:
        return [v for s in self.samples for v in s.versions] or [0]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Group":
        return cls(d["index"], d["problem_id"], d["prompt_ids"], [Sample(**s) for s in d["samples"]])


@dataclass
class PromptInfo:
    problem_id: str
    kind: str
    prompt_ids: list[int]
    prompt_text: str


def load_prompts(data_cfg, tokenizer, max_prompt_tokens: int,
                 source=None) -> tuple[dict[str, PromptInfo], list[str]]:
    """Read the configured problems and render/tokenize each prompt once.

    `source` is where problems come from (`rl_loop.problem_source`): the store named by
    data_cfg.store_uri by default, or the verifier's API. Returns (prompts by id, skipped
    messages). Problems whose prompt is too long for model.max_model_len_tokens -
    generation.max_new_tokens are skipped and reported.
    """
    from rl_loop.problem_source import StoreSource
    from rl_loop.prompts import hf_chat_template, render_prompt

    store = source or StoreSource(data_cfg.store_uri)
    if data_cfg.problem_ids:
        ids = list(data_cfg.problem_ids)
    else:
        ids = [
            p.id for p in store.list()
            if p.kind in data_cfg.kinds and (p.split in data_cfg.splits)
        ]
    template = hf_chat_template(tokenizer)
    out: dict[str, PromptInfo] = {}
    skipped = []
    for pid in ids:
        problem = store.get(pid)
        if problem.split not in data_cfg.splits or problem.kind not in data_cfg.kinds:
            # explicit ids never bypass the split/kind filters: a held-out problem in a
            # training run would leak the evaluation set into the weights
            raise ValueError(f"data.problem_ids: {pid} is a {problem.split!r} {problem.kind!r} problem, but "
                             f"data.splits={list(data_cfg.splits)} and data.kinds={list(data_cfg.kinds)}")
        text = render_prompt(problem, data_cfg.language, template, data_cfg.prompt)
        toks = tokenizer(text, add_special_tokens=False)["input_ids"]
        if len(toks) > max_prompt_tokens:
            skipped.append(f"{pid}: prompt has {len(toks)} tokens > {max_prompt_tokens}")
            continue
        out[pid] = PromptInfo(pid, problem.kind, list(toks), text)
    return out, skipped
