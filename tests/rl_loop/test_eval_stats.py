"""Evaluation statistics against hand-computed values and brute-force oracles."""
from __future__ import annotations

import itertools
import json
import math
import random

import pytest

from rl_loop.eval_stats import bootstrap_ci, format_table, paired_comparison, pass_at_k, sign_test_p, summarise


def brute_pass_at_k(n: int, c: int, k: int) -> float:
    """Enumerate every k-subset of n samples (first c correct): fraction holding a correct one."""
    subsets = list(itertools.combinations(range(n), k))
    return sum(any(i < c for i in s) for s in subsets) / len(subsets)


def test_pass_at_k_by_hand():
    # n=5, c=2, k=2: 1 - C(3,2)/C(5,2) = 1 - 3/10 = 0.7
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7, abs=1e-12)
    # k = 1 is the plain fraction correct: 3/8
    assert pass_at_k(8, 3, 1) == pytest.approx(0.375, abs=1e-12)
    # fewer wrong samples than k: every k-subset holds a correct one
    assert pass_at_k(4, 3, 2) == 1.0
    assert pass_at_k(4, 0, 3) == 0.0
    with pytest.raises(ValueError):
        pass_at_k(4, 5, 1)
    with pytest.raises(ValueError):
        pass_at_k(4, 1, 5)


@pytest.mark.parametrize("n,c,k", [(n, c, k) for n in range(1, 9) for c in range(n + 1) for k in range(1, n + 1)])
def test_pass_at_k_matches_enumeration(n, c, k):
    assert pass_at_k(n, c, k) == pytest.approx(brute_pass_at_k(n, c, k), abs=1e-12)


def test_bootstrap_ci_properties():
    assert bootstrap_ci([0.25] * 10, n_boot=500) == (0.25, 0.25)  # no spread, no width
    rng = random.Random(1)
    small = [float(rng.random() < 0.3) for _ in range(20)]
    big = [float(rng.random() < 0.3) for _ in range(400)]
    lo_s, hi_s = bootstrap_ci(small, n_boot=2000)
    lo_b, hi_b = bootstrap_ci(big, n_boot=2000)
    assert lo_s <= sum(small) / 20 <= hi_s and lo_b <= sum(big) / 400 <= hi_b
    assert hi_b - lo_b < hi_s - lo_s  # 20x the problems: a much narrower interval
    # Binomial check: the 95 % interval of a mean of 400 Bernoulli(p) is about +-1.96 sqrt(p(1-p)/400).
    p = sum(big) / 400
    half = 1.96 * math.sqrt(p * (1 - p) / 400)
    assert (hi_b - lo_b) / 2 == pytest.approx(half, rel=0.15)
    assert bootstrap_ci(small, n_boot=500, seed=3) == bootstrap_ci(small, n_boot=500, seed=3)


def test_sign_test_by_hand():
    # 5 wins, 0 losses: two-sided 2 * (1/2)^5 = 0.0625
    assert sign_test_p(5, 0) == pytest.approx(0.0625)
    # 8 wins, 1 loss: 2 * (C(9,0) + C(9,1)) / 2^9 = 20/512
    assert sign_test_p(8, 1) == pytest.approx(20 / 512)
    assert sign_test_p(3, 3) == 1.0 and sign_test_p(0, 0) == 1.0


def test_summary_and_table():
    rewards = {"a": [1.0, 0.0, 0.0, 1.0], "b": [0.0] * 4, "c": [1.0, 0.5, 1.0, 1.0]}
    s = summarise(rewards, ks=(1, 2), n_boot=500)
    # pass@1 = mean reward per problem: (0.5, 0, 0.875) -> 1.375/3
    assert s["pass@1"]["mean"] == pytest.approx(1.375 / 3)
    # pass@2 with c = (2, 0, 3) correct of 4: (1 - C(2,2)/C(4,2), 0, 1) = (5/6, 0, 1)
    assert s["pass@2"]["mean"] == pytest.approx((5 / 6 + 1) / 3)
    lo, hi = s["pass@1"]["ci95"]
    assert 0.0 <= lo <= s["pass@1"]["mean"] <= hi <= 0.875
    assert [r["problem_id"] for r in s["table"]] == ["a", "b", "c"] and s["table"][2]["correct"] == 3
    text = format_table(s, (1, 2))
    assert "pass@2" in text and "95% CI" in text


def test_paired_comparison_detects_a_uniform_gain_and_not_noise():
    a = {f"p{i}": [0.25 * (i % 3 == 0)] * 4 for i in range(30)}
    b = {p: [x + 0.5 for x in v] for p, v in a.items()}
    res = paired_comparison(a, b, n_boot=999)
    assert res["diff_mean"] == pytest.approx(0.5) and res["diff_ci95"] == [0.5, 0.5]
    assert res["wins"] == 30 and res["p_sign"] < 1e-8 and res["p_bootstrap"] == pytest.approx(1 / 1000)
    same = paired_comparison(a, a, n_boot=999)
    assert same["diff_mean"] == 0.0 and same["p_sign"] == 1.0 and same["p_bootstrap"] == 1.0
    with pytest.raises(ValueError):
        paired_comparison({"x": [1.0]}, {"y": [1.0]})


def test_compare_cli_refuses_unpaired_results(tmp_path, capsys):
    from rl_loop.cli import main

    base = {"split": "heldout", "samples": 2, "seed": 0, "temperature": 1.0, "max_new_tokens": 8}
    (tmp_path / "a.json").write_text(json.dumps({**base, "rewards": {"p": [0.0, 0.0], "q": [0.0, 1.0]}}))
    (tmp_path / "b.json").write_text(json.dumps({**base, "rewards": {"p": [1.0, 1.0], "q": [1.0, 1.0]}}))
    (tmp_path / "c.json").write_text(json.dumps({**base, "seed": 1, "rewards": {"p": [1.0, 1.0]}}))
    assert main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--boot", "200"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["diff_mean"] == pytest.approx(0.75) and out["wins"] == 2
    assert main(["compare", str(tmp_path / "a.json"), str(tmp_path / "c.json")]) == 2
    assert "seed" in capsys.readouterr().err
