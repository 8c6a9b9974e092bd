"""Rewards through the verifier client (embedded in-process, or a URL): never its internals.

* code problems (stdio, function): the completion's code block (`prompts.extract_code`) is
  judged; the verifier's `reward` under the configured rule (all_pass default, fraction)
  is the reward;
* math problems: the whole completion goes through the same verify call; the math judge
  extracts the final answer (its documented policy: boxes, "answer is", ...).

Internal errors are not wrong answers: a response with verdict IE (reward None), a failed
call (VerifierError 5xx, connection loss, timeout) is retried `ie_retries` times, then the
sample is dropped and counted. It is never scored 0. A group that loses samples may then
be too small to keep; the dynamic filter drops it ("too_small").
"""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from rl_loop.prompts import extract_code


@dataclass
class RewardStats:
    judged: int = 0
    ie_retried: int = 0
    ie_dropped: int = 0
    call_failures: int = 0
    seconds: float = 0.0
    verdicts: dict[str, int] = field(default_factory=dict)

    def state_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("judged", "ie_retried", "ie_dropped", "call_failures", "seconds", "verdicts")}

    def load_state_dict(self, d: dict) -> None:
        for k, v in d.items():
            setattr(self, k, v)


def answer_of(kind: str, completion: str, language: str) -> str:
    """What is sent to the verifier for a completion of a problem of `kind`."""
    if kind == "math":
        # the whole completion: the math judge applies its extraction policy (a group of
        # boxes such as "\\boxed{3} or \\boxed{4}" is several answers, which one last
        # box taken here would hide)
        return completion
    return extract_code(completion, language).code


class RewardFn:
    """Score groups of completions; None marks a sample dropped after internal errors."""

    def __init__(self, client: Any, language: str = "python", reward_rule: str = "all_pass",
                 ie_retries: int = 2, timeout_s: float = 120.0, max_concurrency: int = 8) -> None:
        self.client = client
        self.language = language
        self.reward_rule = reward_rule
        self.ie_retries = ie_retries
        self.timeout_s = timeout_s
        self.stats = RewardStats()
        self._sem = asyncio.Semaphore(max_concurrency)

    def _request(self, problem_id: str, kind: str, completion: str) -> dict:
        return {
            "problem_id": problem_id,
            "language": self.language,
            "code": answer_of(kind, completion, self.language),
            "options": {"reward": self.reward_rule},
        }

    async def _judge(self, reqs: list[dict]) -> list[Any | None]:
        """One batch call; None for each request when the call itself failed."""
        from verifier.client import VerifierError

        try:
            async with self._sem:
                return await asyncio.wait_for(self.client.verify_batch(reqs), self.timeout_s)
        except VerifierError as exc:
            if exc.status < 500:  # our request is bad: an error in the loop, not an IE
                raise
            self.stats.call_failures += 1
        except (OSError, asyncio.TimeoutError):
            self.stats.call_failures += 1
        return [None] * len(reqs)

    async def score(self, problem_id: str, kind: str, completions: list[str]) -> list[float | None]:
        t0 = time.perf_counter()
        reqs = [self._request(problem_id, kind, c) for c in completions]
        rewards: list[float | None] = [None] * len(reqs)
        todo = list(range(len(reqs)))
        for attempt in range(self.ie_retries + 1):
            if not todo:
                break
            if attempt:
                self.stats.ie_retried += len(todo)
            outs = await self._judge([reqs[i] for i in todo])
            still = []
            for i, out in zip(todo, outs):
                if out is None or out.reward is None:
                    still.append(i)
                    continue
                v = out.verdict.value if hasattr(out.verdict, "value") else str(out.verdict)
                self.stats.verdicts[v] = self.stats.verdicts.get(v, 0) + 1
                rewards[i] = float(out.reward)
            todo = still
        self.stats.ie_dropped += len(todo)
        self.stats.judged += len(reqs) - len(todo)
        self.stats.seconds += time.perf_counter() - t0
        return rewards


def make_client(mode: str, store_uri: str, backend: str = "local", verifier_url: str | None = None):
    """The verifier client the config asks for (embedded in-process, or HTTP)."""
    from verifier.client import VerifierClient

    if mode == "http":
        if not verifier_url:
            raise ValueError("rewards.mode=http needs rewards.verifier_url")
        return VerifierClient(verifier_url)
    # The embedded verifier shares the machine with the trainer ranks and the vLLM engines,
    # which pin their own threads to cores: slots pinned as well (sandboxes/backends/cpu_pin.py)
    # could not move off a core those keep busy, so here the scheduler places the runs.
    options = {"pin_cpus": False} if backend in ("local", "docker") else {}
    return VerifierClient.embedded(store_uri=store_uri, backend=backend, backend_options=options)
