"""Prometheus metrics, written in the text exposition format (version 0.0.4) by hand.

Hand-written because the set is small and fixed, and each app instance (tests build many)
needs its own registry rather than prometheus_client's process-global one.
"""

from __future__ import annotations

import bisect
from collections import defaultdict

LATENCY_BUCKETS_S = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


def _labels(names: tuple[str, ...], values: tuple[str, ...]) -> str:
    if not names:
        return ""
    esc = (v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") for v in values)
    return "{" + ",".join(f'{n}="{v}"' for n, v in zip(names, esc)) + "}"


class Counter:
    def __init__(self, name: str, help_: str, labels: tuple[str, ...] = ()):
        self.name, self.help, self.label_names = name, help_, labels
        self.values: dict[tuple[str, ...], float] = defaultdict(float)

    def inc(self, amount: float = 1.0, *labels: str) -> None:
        self.values[tuple(labels)] += amount

    def labels_inc(self, *labels: str) -> None:
        self.inc(1.0, *labels)

    def render(self) -> list[str]:
        out = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} counter"]
        if not self.values and not self.label_names:
            out.append(f"{self.name} 0")
        for key, v in sorted(self.values.items()):
            out.append(f"{self.name}{_labels(self.label_names, key)} {v:g}")
        return out


class Gauge:
    def __init__(self, name: str, help_: str, read):
        self.name, self.help, self.read = name, help_, read

    def render(self) -> list[str]:
        return [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} gauge",
                f"{self.name} {float(self.read()):g}"]


class Histogram:
    def __init__(self, name: str, help_: str, labels: tuple[str, ...] = (),
                 buckets: tuple[float, ...] = LATENCY_BUCKETS_S):
        self.name, self.help, self.label_names, self.buckets = name, help_, labels, buckets
        self.counts: dict[tuple[str, ...], list[int]] = {}
        self.sums: dict[tuple[str, ...], float] = defaultdict(float)

    def observe(self, value: float, *labels: str) -> None:
        key = tuple(labels)
        counts = self.counts.setdefault(key, [0] * (len(self.buckets) + 1))
        counts[bisect.bisect_left(self.buckets, value)] += 1
        self.sums[key] += value

    def render(self) -> list[str]:
        out = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} histogram"]
        for key, counts in sorted(self.counts.items()):
            cum = 0
            for bound, c in zip(self.buckets, counts):
                cum += c
                out.append(f"{self.name}_bucket"
                           f"{_labels(self.label_names + ('le',), key + (f'{bound:g}',))} {cum}")
            cum += counts[-1]
            out.append(f"{self.name}_bucket{_labels(self.label_names + ('le',), key + ('+Inf',))} {cum}")
            out.append(f"{self.name}_sum{_labels(self.label_names, key)} {self.sums[key]:g}")
            out.append(f"{self.name}_count{_labels(self.label_names, key)} {cum}")
        return out


class Metrics:
    def __init__(self, admission=None):
        self.requests = Counter("verifier_http_requests_total", "HTTP requests by route and status.",
                                ("route", "status"))
        self.latency = Histogram("verifier_http_request_duration_seconds",
                                 "HTTP request latency by route.", ("route",))
        self.verdicts = Counter("verifier_verdicts_total", "Overall verdicts by class and kind.",
                                ("verdict", "kind"))
        self.test_verdicts = Counter("verifier_test_verdicts_total", "Per-test verdicts by class.",
                                     ("verdict",))
        self.judge_latency = Histogram("verifier_judge_duration_seconds",
                                       "Time to judge one submission (after admission).", ("kind",))
        self.sandbox_seconds = Counter("verifier_sandbox_seconds_total",
                                       "Wall seconds spent in sandbox runs and compiles.")
        self.rejected = Counter("verifier_rejected_total", "Requests refused by admission (429).")
        self.admission = admission
        self._gauges: list[Gauge] = []
        if admission is not None:
            self._gauges = [
                Gauge("verifier_queue_depth", "Submissions admitted and waiting for a slot.",
                      lambda: admission.waiting),
                Gauge("verifier_inflight", "Submissions being judged now.", lambda: admission.running),
                Gauge("verifier_queue_capacity", "Slots plus queue places.", lambda: admission.capacity),
            ]
        self.extra_gauges: list[Gauge] = []

    def render(self) -> str:
        lines: list[str] = []
        for m in (self.requests, self.latency, self.verdicts, self.test_verdicts,
                  self.judge_latency, self.sandbox_seconds, self.rejected,
                  *self._gauges, *self.extra_gauges):
            lines.extend(m.render())
        return "\n".join(lines) + "\n"
