"""Partial rollouts: generation in segments, so weight updates do not wait for long sequences.

With ``generation.interruptible: true`` a round of candidates is generated in segments of
``segment_tokens`` tokens. Between segments the generators may load a newer policy
version; sequences still running continue under the new weights (their prefix is fed back
as the prompt, so its KV is recomputed by the new weights), and every token keeps the
version that sampled it, with its behaviour log-prob under that version. The trainer's
loss then sees per-token ``versions`` and ``behaviour_logprobs`` (staleness per token for
A-3PO, per-token importance weights everywhere). This is what LlamaRL and AReaL call
in-flight weight updates.

Why segments rather than interrupting on a timer: the schedule must stay a function of the
seed (rl_loop/schedule.py). A segment boundary is a deterministic point, and which version
segment m of step k uses is fixed by ``StepSchedule.segment_version(k, m)``: never older
than ``k - s`` (the staleness bound) and never newer than the trainer has certainly
produced while step k is being generated. Segment counters run across a step's refill
rounds, so the version sequence a step sees is monotone and the same on every run.

Seeds: segment 0 is one request per candidate with ``n`` samples and the candidate's seed
(as without segments); segment m > 0 of sample i is its own request with seed
``continuation_seed(seed, i, m)``. A sequence is finished when the engine stops it (EOS or
a stop string), when a segment comes back shorter than asked, or at ``max_new_tokens``.
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Sequence

from rl_loop.generator import Completion, GenRequest, GenResult


def continuation_seed(seed: int | None, sample: int, segment: int) -> int:
    base = 0 if seed is None else seed
    return (base * 1_000_003 + (sample + 1) * 7_919 + segment * 104_729) % (2**31 - 1)


@dataclass
class _Running:
    tokens: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    versions: list[int] = field(default_factory=list)
    text: str = ""
    finish_reason: str | None = None
    done: bool = False


@dataclass
class _Candidate:
    key: int
    prompt_ids: list[int]
    seed: int | None
    seqs: list[_Running]
    reported: bool = False

    def result(self) -> GenResult:
        comps = [Completion(s.tokens, s.logprobs, s.versions, s.finish_reason, s.text) for s in self.seqs]
        return GenResult(self.key, list(self.prompt_ids), comps, min((v for s in self.seqs for v in s.versions),
                                                                      default=0))


class SegmentedRound:
    """The state of one round of candidates generated segment by segment."""

    def __init__(self, requests: Sequence[GenRequest], segment_tokens: int, max_new_tokens: int) -> None:
        if segment_tokens < 1:
            raise ValueError("segment_tokens must be >= 1")
        self.seg = segment_tokens
        self.max_new = max_new_tokens
        self.cands = [_Candidate(r.key, list(r.prompt_ids), r.seed, [_Running() for _ in range(r.n)])
                      for r in requests]
        self.segments = 0  # segments of this round generated so far

    @property
    def finished(self) -> bool:
        return all(s.done for c in self.cands for s in c.seqs)

    def requests(self) -> tuple[list[GenRequest], list[list[tuple[int, int]]]]:
        """Requests for the next segment and, for each, the (candidate, sample) slots it fills."""
        reqs, slots = [], []
        for ci, c in enumerate(self.cands):
            if self.segments == 0:
                reqs.append(GenRequest(c.key, c.prompt_ids, len(c.seqs), c.seed,
                                       max_tokens=min(self.seg, self.max_new)))
                slots.append([(ci, i) for i in range(len(c.seqs))])
                continue
            for i, s in enumerate(c.seqs):
                if s.done:
                    continue
                want = min(self.seg, self.max_new - len(s.tokens))
                reqs.append(GenRequest(c.key, c.prompt_ids + s.tokens, 1,
                                       continuation_seed(c.seed, i, self.segments), max_tokens=want))
                slots.append([(ci, i)])
        return reqs, slots

    def absorb(self, requests: Sequence[GenRequest], slots: Sequence[list[tuple[int, int]]],
               results: Sequence[GenResult]) -> None:
        """Append one segment's tokens (each tagged with the version that sampled it)."""
        for req, where, res in zip(requests, slots, results):
            if len(res.completions) != len(where):
                raise RuntimeError(f"request {req.key}: {len(res.completions)} completions for {len(where)} slots")
            for (ci, i), comp in zip(where, res.completions):
                s = self.cands[ci].seqs[i]
                s.tokens += comp.token_ids
                s.logprobs += comp.logprobs
                s.versions += comp.versions
                s.text += comp.text
                s.finish_reason = comp.finish_reason
                short = len(comp.token_ids) < (req.max_tokens or self.seg)
                s.done = comp.finish_reason != "length" or short or len(s.tokens) >= self.max_new
        self.segments += 1

    def newly_finished(self) -> list[int]:
        """Candidates whose every sample is finished and that were not reported yet (in order)."""
        out = []
        for ci, c in enumerate(self.cands):
            if not c.reported and all(s.done for s in c.seqs):
                c.reported = True
                out.append(ci)
        return out


async def generate_segmented(
    requests: Sequence[GenRequest],
    generators: Sequence[Any],
    segment_tokens: int,
    max_new_tokens: int,
    hold: Callable[[int], Awaitable[bool]],
    on_done: Callable[[int, GenResult], None],
    calls_per_segment: int = 1,
) -> int:
    """Generate a round segment by segment; returns the number of segments it took.

    ``hold(m)`` makes every generator hold the version segment m (of this round) must use
    and returns False when the run is stopping. Each segment's requests are cut into
    ``calls_per_segment`` contiguous calls, call c going to generator c mod G.
    ``on_done(index, result)`` is called, in request order, as each candidate finishes.
    """
    state = SegmentedRound(requests, segment_tokens, max_new_tokens)
    G = len(generators)
    while not state.finished:
        if not await hold(state.segments):
            return state.segments
        reqs, slots = state.requests()
        n_calls = max(1, min(calls_per_segment, len(reqs)))
        size = -(-len(reqs) // n_calls)
        chunks = [list(range(i, min(i + size, len(reqs)))) for i in range(0, len(reqs), size)]
        results: list[GenResult | None] = [None] * len(reqs)

        async def work(gi: int) -> None:
            for chunk in chunks[gi::G]:
                for idx, res in zip(chunk, await generators[gi].generate([reqs[i] for i in chunk])):
                    results[idx] = res

        await asyncio.gather(*(work(g) for g in range(G)))
        state.absorb(reqs, slots, results)  # type: ignore[arg-type]
        for ci in state.newly_finished():
            on_done(ci, state.cands[ci].result())
    return state.segments
