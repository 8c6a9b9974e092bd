"""Metrics JSONL + TensorBoard writer and the PNG plotter."""
from __future__ import annotations

import json

import pytest

from rl_loop.metrics import MetricsWriter, read_metrics, series
from rl_loop.plot import main as plot_main
from rl_loop.plot import plot_run


def _tb_scalars(run_dir, tag):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run_dir / "tb"))
    acc.Reload()
    return [(e.step, e.value) for e in acc.Scalars(tag)]


def test_jsonl_and_tensorboard(tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("tensorboard")
    with MetricsWriter(tmp_path) as w:
        w.log(1, {"reward/mean": 0.25, "loss/clip_fraction": torch.tensor(0.5), "time/step_s": 2})
        w.log(2, {"reward/mean": 0.5, "loss/entropy_mean": float("nan")})
        w.log_histogram(2, "staleness/hist", {0: 3, 1: 1})
    recs = read_metrics(tmp_path)
    assert [r["step"] for r in recs] == [1, 2]
    assert recs[0]["loss/clip_fraction"] == 0.5 and recs[1]["loss/entropy_mean"] is None
    assert series(recs, "reward/mean") == ([1, 2], [0.25, 0.5])
    assert series(recs, "loss/entropy_mean") == ([], [])
    hist = [json.loads(x) for x in (tmp_path / "histograms.jsonl").read_text().splitlines()]
    assert hist == [{"step": 2, "name": "staleness/hist", "counts": {"0.0": 3, "1.0": 1}}]
    assert _tb_scalars(tmp_path, "reward/mean") == [(1, 0.25), (2, 0.5)]


def test_resume_truncates_later_steps(tmp_path):
    with MetricsWriter(tmp_path, tensorboard=False) as w:
        for s in range(1, 6):
            w.log(s, {"reward/mean": s / 10})
    with MetricsWriter(tmp_path, tensorboard=False, resume_from_step=3) as w:
        w.log(4, {"reward/mean": 0.99})
    assert series(read_metrics(tmp_path), "reward/mean") == ([1, 2, 3, 4], [0.1, 0.2, 0.3, 0.99])


def test_torn_last_line_is_ignored(tmp_path):
    with MetricsWriter(tmp_path, tensorboard=False) as w:
        w.log(1, {"a": 1})
    with open(tmp_path / "metrics.jsonl", "a") as f:
        f.write('{"step": 2, "a"')
    assert [r["step"] for r in read_metrics(tmp_path)] == [1]


def test_bad_values_named(tmp_path):
    with MetricsWriter(tmp_path, tensorboard=False) as w:
        with pytest.raises(TypeError, match="'reward/mean'"):
            w.log(1, {"reward/mean": "high"})
        with pytest.raises(ValueError, match="reserved"):
            w.log(1, {"step": 3})


def test_plot_writes_pngs(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    with MetricsWriter(tmp_path, tensorboard=False) as w:
        for s in range(1, 5):
            w.log(s, {
                "reward/mean": s / 4, "reward/pass_rate": s / 5, "filter/dropped_fraction": 0.1,
                "loss/logprob_gap_mean": 0.01, "loss/logprob_gap_p95": 0.03, "loss/importance_weight_mean": 1.0,
                "loss/clip_fraction": 0.02, "loss/entropy_mean": 1.5, "perf/tokens_per_s": 100.0,
                "time/weight_sync_s": 0.5, "time/generation_s": 3.0, "time/train_s": 1.0,
                "perf/train_tokens_per_s": 50.0,
            })
    paths = plot_run(tmp_path)
    names = {p.name for p in paths}
    assert {"reward.png", "filtering.png", "logprob_gap.png", "importance_weight.png", "clip_fraction.png",
            "entropy.png", "tokens_per_s.png", "weight_sync.png", "step_time.png", "overview.png"} == names
    for p in paths:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert plot_main([str(tmp_path), "--out", str(tmp_path / "o")]) == 0
    assert (tmp_path / "o" / "reward.png").exists()
    assert plot_main([str(tmp_path / "nothing")]) == 2
    assert "no metrics.jsonl" in capsys.readouterr().err
