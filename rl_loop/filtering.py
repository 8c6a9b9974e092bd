"""Dynamic filtering: drop prompt groups that carry no learning signal (DAPO; RLAX 6.2).

A group whose rewards are all equal has zero advantage under every group-baseline
estimator, so it adds nothing to the gradient but still costs a trainer pass and
dilutes the batch. The controller drops such groups and keeps sampling until the batch
is full. Counts (and why each group was dropped) are logged and checkpointed, so a
resumed run reports the same totals.

``prefilter`` is the offline cousin: given measured pass rates per problem (e.g. from a
pass over the dataset with the initial policy), keep only problems that are neither
always solved nor never solved.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence, TypeVar

T = TypeVar("T")

DROP_REASONS = ("all_pass", "all_fail", "all_equal", "too_small")


class DynamicFilter:
    """Keep a group only if its rewards differ; count kept and dropped groups by reason.

    ``enabled=False`` keeps everything but still counts what it would have dropped
    (under ``would_drop``), so an ablation without filtering logs the same numbers.
    ``min_group_size``: groups shrunk by internal-error drops below this are dropped
    (``too_small``); a group of one has no baseline.
    """

    def __init__(self, enabled: bool = True, min_group_size: int = 2, tolerance: float = 0.0) -> None:
        if min_group_size < 1:
            raise ValueError("min_group_size must be >= 1")
        self.enabled = enabled
        self.min_group_size = min_group_size
        self.tolerance = tolerance
        self.kept = 0
        self.dropped: dict[str, int] = {r: 0 for r in DROP_REASONS}
        self.would_drop = 0

    def reason(self, rewards: Sequence[float]) -> str | None:
        """Why this group would be dropped, or None if it has signal."""
        values = [float(r) for r in rewards]
        if any(math.isnan(v) for v in values):
            raise ValueError("NaN reward in a group: internal errors must be dropped before filtering")
        if len(values) < self.min_group_size:
            return "too_small"
        lo, hi = min(values), max(values)
        if hi - lo > self.tolerance:
            return None
        if lo >= 1.0:
            return "all_pass"
        if hi <= 0.0:
            return "all_fail"
        return "all_equal"

    def keep(self, rewards: Sequence[float]) -> bool:
        """Decide for one group and count it."""
        return self.count(self.reason(rewards))

    def decides_keep(self, why: str | None) -> bool:
        """Whether a group with drop reason `why` is kept (no counting)."""
        return why is None or not self.enabled

    def count(self, why: str | None) -> bool:
        """Count one group whose drop reason (from `reason`) is `why`; return whether it is kept."""
        if why is None:
            self.kept += 1
            return True
        if not self.enabled:
            self.would_drop += 1
            self.kept += 1
            return True
        self.dropped[why] += 1
        return False

    def filter(self, groups: Iterable[T], rewards_of: Callable[[T], Sequence[float]]) -> list[T]:
        return [g for g in groups if self.keep(rewards_of(g))]

    @property
    def total_dropped(self) -> int:
        return sum(self.dropped.values())

    def stats(self) -> dict[str, float]:
        seen = self.kept + self.total_dropped
        out: dict[str, float] = {
            "filter/kept_groups": float(self.kept),
            "filter/dropped_groups": float(self.total_dropped),
            "filter/dropped_fraction": self.total_dropped / seen if seen else 0.0,
            "filter/would_drop_groups": float(self.would_drop),
        }
        for r, n in self.dropped.items():
            out[f"filter/dropped_{r}"] = float(n)
        return out

    def state_dict(self) -> dict[str, Any]:
        return {"kept": self.kept, "dropped": dict(self.dropped), "would_drop": self.would_drop}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        unknown = set(state.get("dropped", {})) - set(DROP_REASONS)
        if unknown:
            raise ValueError(f"unknown drop reasons in filter state: {sorted(unknown)}")
        self.kept = int(state["kept"])
        self.dropped = {r: int(state.get("dropped", {}).get(r, 0)) for r in DROP_REASONS}
        self.would_drop = int(state.get("would_drop", 0))


@dataclass
class PrefilterResult:
    kept: list[str]
    dropped: dict[str, str] = field(default_factory=dict)  # problem id -> reason


def prefilter(
    problem_ids: Iterable[str],
    pass_rates: Mapping[str, float],
    min_rate: float = 0.0,
    max_rate: float = 1.0,
) -> PrefilterResult:
    """Keep problems with ``min_rate < pass rate < max_rate``; unmeasured ones are kept.

    Unmeasured problems stay: a problem whose pass rate could not be measured (its
    judging hit internal errors) is not evidence that it is useless.
    """
    if not 0.0 <= min_rate < max_rate <= 1.0:
        raise ValueError(f"need 0 <= min_rate < max_rate <= 1, got {min_rate}, {max_rate}")
    result = PrefilterResult(kept=[])
    for pid in problem_ids:
        rate = pass_rates.get(pid)
        if rate is None:
            result.kept.append(pid)
        elif rate <= min_rate:
            result.dropped[pid] = "too_hard"
        elif rate >= max_rate:
            result.dropped[pid] = "too_easy"
        else:
            result.kept.append(pid)
    return result


def pass_rates_from_rewards(rewards: Mapping[str, Sequence[float]]) -> dict[str, float]:
    """Mean reward per problem from a pre-filter sampling pass (rewards in [0, 1])."""
    return {pid: sum(r) / len(r) for pid, r in rewards.items() if len(r)}
