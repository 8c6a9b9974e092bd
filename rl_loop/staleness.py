"""Staleness gate: the trainer's bound on how old a rollout may be (RLAX 3.1).

Every token carries the policy version that sampled it; a rollout that spans a weight
reload mixes versions. Its version is its *oldest* token's: the bound must hold for
every token, and the oldest is the furthest off-policy. The gate accepts a rollout if
``trainer_version - rollout_version <= max_staleness`` (0 = synchronous on-policy),
counts the ones it discards, and keeps a histogram of accepted staleness for logging.

A rollout newer than the trainer is impossible in a correct system: that raises.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Iterable, Mapping, Sequence, TypeVar

T = TypeVar("T")
Versions = int | Sequence[int]


class StalenessGate:
    def __init__(self, max_staleness: int) -> None:
        if max_staleness < 0:
            raise ValueError(f"max_staleness must be >= 0, got {max_staleness}")
        self.max_staleness = max_staleness
        self.accepted = 0
        self.discarded = 0
        self.histogram: Counter[int] = Counter()  # staleness of accepted rollouts
        self.discarded_histogram: Counter[int] = Counter()

    @staticmethod
    def rollout_version(versions: Versions) -> int:
        """A rollout's version: the oldest (smallest) of its tokens' versions."""
        if isinstance(versions, int):
            return versions
        vs = [int(v) for v in versions]
        if not vs:
            raise ValueError("a rollout with no tokens has no version")
        return min(vs)

    def staleness(self, trainer_version: int, versions: Versions) -> int:
        d = trainer_version - self.rollout_version(versions)
        if d < 0:
            raise ValueError(
                f"rollout version {self.rollout_version(versions)} is newer than trainer version {trainer_version}"
            )
        return d

    def accept(self, trainer_version: int, versions: Versions) -> bool:
        """Decide for one rollout and count it."""
        d = self.staleness(trainer_version, versions)
        if d <= self.max_staleness:
            self.accepted += 1
            self.histogram[d] += 1
            return True
        self.discarded += 1
        self.discarded_histogram[d] += 1
        return False

    def filter(self, items: Iterable[T], trainer_version: int, versions_of: Callable[[T], Versions]) -> list[T]:
        return [x for x in items if self.accept(trainer_version, versions_of(x))]

    def stats(self) -> dict[str, float]:
        seen = self.accepted + self.discarded
        total = sum(self.histogram.values())
        mean = sum(d * n for d, n in self.histogram.items()) / total if total else 0.0
        return {
            "staleness/accepted": float(self.accepted),
            "staleness/discarded": float(self.discarded),
            "staleness/discarded_fraction": self.discarded / seen if seen else 0.0,
            "staleness/mean": mean,
            "staleness/max": float(max(self.histogram, default=0)),
        }

    def state_dict(self) -> dict[str, Any]:
        return {
            "max_staleness": self.max_staleness,
            "accepted": self.accepted,
            "discarded": self.discarded,
            # JSON object keys must be strings; load_state_dict turns them back.
            "histogram": {str(k): v for k, v in sorted(self.histogram.items())},
            "discarded_histogram": {str(k): v for k, v in sorted(self.discarded_histogram.items())},
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.accepted = int(state["accepted"])
        self.discarded = int(state["discarded"])
        self.histogram = Counter({int(k): int(v) for k, v in state.get("histogram", {}).items()})
        self.discarded_histogram = Counter({int(k): int(v) for k, v in state.get("discarded_histogram", {}).items()})
