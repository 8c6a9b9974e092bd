"""Staleness gate: accept rollouts at most max_staleness versions old (oldest token)."""
from __future__ import annotations

import json

import pytest

from rl_loop.staleness import StalenessGate


def test_on_policy_gate():
    g = StalenessGate(0)
    assert g.accept(5, 5)
    assert not g.accept(5, 4)
    assert (g.accepted, g.discarded) == (1, 1)


def test_oldest_token_decides():
    g = StalenessGate(2)
    # tokens sampled across a weight reload: versions 3 then 6; trainer at 6 -> staleness 3.
    assert g.rollout_version([3, 3, 6, 6]) == 3
    assert g.staleness(6, [3, 3, 6, 6]) == 3
    assert not g.accept(6, [3, 3, 6, 6])
    assert g.accept(6, [4, 5, 6])
    assert g.accept(6, [6, 6])


def test_filter_counts_and_histogram():
    g = StalenessGate(2)
    rollouts = [{"v": [10]}, {"v": [9, 10]}, {"v": [8]}, {"v": [7]}, {"v": [5, 10]}, {"v": [10]}]
    kept = g.filter(rollouts, 10, versions_of=lambda r: r["v"])
    assert kept == [rollouts[0], rollouts[1], rollouts[2], rollouts[5]]
    assert dict(g.histogram) == {0: 2, 1: 1, 2: 1}
    assert dict(g.discarded_histogram) == {3: 1, 5: 1}
    s = g.stats()
    assert s["staleness/discarded"] == 2 and s["staleness/discarded_fraction"] == pytest.approx(2 / 6)
    assert s["staleness/mean"] == pytest.approx((0 + 0 + 1 + 2) / 4) and s["staleness/max"] == 2


def test_state_round_trip_through_json():
    g = StalenessGate(1)
    for v in (3, 2, 1, 3):
        g.accept(3, v)
    h = StalenessGate(1)
    h.load_state_dict(json.loads(json.dumps(g.state_dict())))
    assert h.stats() == g.stats() and h.histogram == g.histogram


def test_errors():
    with pytest.raises(ValueError, match="newer than trainer"):
        StalenessGate(1).accept(3, [4])
    with pytest.raises(ValueError, match="no tokens"):
        StalenessGate(1).accept(3, [])
    with pytest.raises(ValueError, match=">= 0"):
        StalenessGate(-1)
