"""Dynamic filter and pre-filter."""
from __future__ import annotations

import json

import pytest

from rl_loop.filtering import DynamicFilter, pass_rates_from_rewards, prefilter


def test_drops_equal_groups_with_reasons():
    f = DynamicFilter()
    groups = {
        "mixed": [1.0, 0.0, 1.0],
        "solved": [1.0, 1.0, 1.0],
        "failed": [0.0, 0.0, 0.0],
        "partial": [0.5, 0.5, 0.5],
        "fraction_mixed": [0.5, 0.25, 0.5],
        "lonely": [1.0],  # shrunk to one sample by internal-error drops
    }
    kept = f.filter(groups.items(), rewards_of=lambda kv: kv[1])
    assert [k for k, _ in kept] == ["mixed", "fraction_mixed"]
    assert f.kept == 2
    assert f.dropped == {"all_pass": 1, "all_fail": 1, "all_equal": 1, "too_small": 1}
    s = f.stats()
    assert s["filter/dropped_fraction"] == pytest.approx(4 / 6)
    assert s["filter/dropped_all_pass"] == 1.0


def test_disabled_filter_keeps_all_but_counts():
    f = DynamicFilter(enabled=False)
    assert f.keep([1.0, 1.0]) and f.keep([0.0, 1.0])
    assert f.kept == 2 and f.total_dropped == 0 and f.would_drop == 1


def test_state_round_trip_through_json():
    f = DynamicFilter()
    for r in ([1, 1], [0, 0], [0, 1], [0, 0]):
        f.keep(r)
    state = json.loads(json.dumps(f.state_dict()))
    g = DynamicFilter()
    g.load_state_dict(state)
    assert g.stats() == f.stats()
    g.keep([1, 1])
    assert g.dropped["all_pass"] == 2
    with pytest.raises(ValueError, match="unknown drop reasons"):
        g.load_state_dict({"kept": 0, "dropped": {"bogus": 1}})


def test_nan_reward_is_an_error_not_a_drop():
    with pytest.raises(ValueError, match="NaN"):
        DynamicFilter().keep([float("nan"), 1.0])


def test_prefilter():
    rates = pass_rates_from_rewards({"a": [0, 0, 0], "b": [1, 0, 1, 1], "c": [1, 1], "d": []})
    assert rates == {"a": 0.0, "b": 0.75, "c": 1.0}
    res = prefilter(["a", "b", "c", "d"], rates)
    assert res.kept == ["b", "d"]  # d unmeasured: kept
    assert res.dropped == {"a": "too_hard", "c": "too_easy"}
    res = prefilter(["a", "b", "c"], rates, min_rate=0.0, max_rate=0.7)
    assert res.kept == [] and res.dropped["b"] == "too_easy"
    with pytest.raises(ValueError):
        prefilter([], {}, min_rate=0.5, max_rate=0.5)
