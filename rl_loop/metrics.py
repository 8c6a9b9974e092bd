"""Per-step metrics: one JSON line per step (the record of truth) plus TensorBoard.

``metrics.jsonl`` in the run directory holds flat ``{"step": n, "time_unix_s": t, key: value}``
records; ``plot.py`` and tests read it back. TensorBoard gets the same scalars (and
staleness histograms) under ``RUN_DIR/tb``. Histograms go to ``histograms.jsonl`` so the
scalar file stays flat.

On resume from step s, records after s are cut (``resume_from_step``): the resumed run
rewrites them, and the curves must not show the lost steps twice.

Key conventions (read by plot.py): ``reward/*``, ``filter/*``, ``staleness/*``,
``loss/<stat of compute_loss>``, ``perf/tokens_per_s``, ``time/<phase>_s``.
"""
from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

METRICS_FILE = "metrics.jsonl"
HISTOGRAMS_FILE = "histograms.jsonl"
TB_DIR = "tb"


def _scalar(key: str, value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if hasattr(value, "item") and callable(value.item):  # torch / numpy scalars
        value = value.item()
    if not isinstance(value, (int, float)):
        raise TypeError(f"metric {key!r} must be a number, got {type(value).__name__}")
    v = float(value)
    return v if math.isfinite(v) else None  # JSON has no NaN/inf; null marks "undefined"


def _truncate(path: Path, step: int) -> None:
    if not path.exists():
        return
    kept = [line for line in path.read_text().splitlines() if line.strip() and json.loads(line).get("step", -1) <= step]
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(line + "\n" for line in kept))
    tmp.replace(path)


class MetricsWriter:
    def __init__(self, run_dir: str | Path, tensorboard: bool = True, resume_from_step: int | None = None) -> None:
        self.run_dir = Path(run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.run_dir / METRICS_FILE
        self.hist_path = self.run_dir / HISTOGRAMS_FILE
        if resume_from_step is not None:
            _truncate(self.path, resume_from_step)
            _truncate(self.hist_path, resume_from_step)
        self._file = self.path.open("a", encoding="utf-8")
        self._hist = self.hist_path.open("a", encoding="utf-8")
        self._tb = None
        if tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError as exc:  # pragma: no cover - depends on the environment
                raise ImportError(
                    "logging.tensorboard=true needs the `tensorboard` package (pip install tensorboard)"
                ) from exc
            purge = None if resume_from_step is None else resume_from_step + 1
            self._tb = SummaryWriter(log_dir=str(self.run_dir / TB_DIR), purge_step=purge)

    def log(self, step: int, values: Mapping[str, Any]) -> dict[str, Any]:
        """Write one step's scalars; returns the record written."""
        record: dict[str, Any] = {"step": int(step), "time_unix_s": time.time()}
        for key, value in values.items():
            if key in record:
                raise ValueError(f"metric name {key!r} is reserved")
            v = _scalar(key, value)
            record[key] = v
            if self._tb is not None and v is not None:
                self._tb.add_scalar(key, v, int(step))
        self._file.write(json.dumps(record) + "\n")
        self._file.flush()
        return record

    def log_histogram(self, step: int, name: str, data: Mapping[int | float, int] | Sequence[float]) -> None:
        """A histogram as ``{value: count}`` (e.g. staleness counts) or raw values."""
        if isinstance(data, Mapping):
            counts = {float(k): int(v) for k, v in data.items()}
            values: list[float] = [k for k, n in counts.items() for _ in range(n)]
        else:
            values = [float(x) for x in data]
            counts = {}
            for x in values:
                counts[x] = counts.get(x, 0) + 1
        self._hist.write(json.dumps({"step": int(step), "name": name, "counts": {repr(k): v for k, v in sorted(counts.items())}}) + "\n")
        self._hist.flush()
        if self._tb is not None and values:
            import numpy as np

            self._tb.add_histogram(name, np.asarray(values, dtype=np.float64), int(step))

    def flush(self) -> None:
        self._file.flush()
        self._hist.flush()
        if self._tb is not None:
            self._tb.flush()

    def close(self) -> None:
        self.flush()
        self._file.close()
        self._hist.close()
        if self._tb is not None:
            self._tb.close()
            self._tb = None

    def __enter__(self) -> "MetricsWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_metrics(run_dir: str | Path) -> list[dict[str, Any]]:
    """Every record of ``metrics.jsonl``, in file order; a torn last line is ignored."""
    path = Path(run_dir) / METRICS_FILE
    if not path.exists():
        raise FileNotFoundError(f"no {METRICS_FILE} in {run_dir}")
    out = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            if i == len(lines) - 1:  # a crash mid-write leaves at most the last line torn
                break
            raise
    return out


def series(records: Iterable[Mapping[str, Any]], key: str) -> tuple[list[int], list[float]]:
    """(steps, values) of one metric, skipping steps where it is absent or null."""
    steps, values = [], []
    for r in records:
        v = r.get(key)
        if v is not None:
            steps.append(int(r["step"]))
            values.append(float(v))
    return steps, values
