"""bench/cpu_split.py's accounting: each CPU tick lands in one role, exits counted once."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import cpu_split  # noqa: E402

HZ = cpu_split.HZ


def _snap(procs: dict, busy: int, idle: int) -> dict:
    return {"procs": procs, "busy": busy, "idle": idle}


def test_a_zygote_replaced_inside_the_stretch_is_counted_once():
    # agent 10 reaps zygote 20 (replaced) inside the stretch; zygote 21 starts after it.
    before = _snap({10: ("agents", 100, 0, 1), 20: ("sandboxed", 50, 400, 10), 5: ("service", 70, 0, 1)},
                   busy=1000, idle=0)
    # zygote 20 ended at own 60 + children 520: the agent's children total grew by 580.
    after = _snap({10: ("agents", 130, 580, 1), 21: ("sandboxed", 5, 40, 10), 5: ("service", 90, 0, 1)},
                  busy=1000 + 30 + 580 - 450 + 45 + 20 + 15, idle=7)
    got = cpu_split.split(before, after)
    assert round(got["agents"] * HZ) == 30
    assert round(got["sandboxed"] * HZ) == (60 + 520 - 50 - 400) + 45  # zygote 20's part in the stretch + zygote 21
    assert round(got["service"] * HZ) == 20
    assert round(got["other"] * HZ) == 15 and round(got["idle"] * HZ) == 7


def test_a_reused_pid_of_another_role_is_a_new_process():
    before = _snap({30: ("client", 10, 0, 1)}, busy=0, idle=0)
    after = _snap({30: ("agents", 4, 0, 1)}, busy=100, idle=0)
    got = cpu_split.split(before, after)
    assert round(got["agents"] * HZ) == 4 and got["client"] == 0


def test_a_real_snapshot_sees_this_process_as_the_client():
    snap = cpu_split.snapshot()
    import os
    assert snap["procs"][os.getpid()][0] == "client"
    assert snap["busy"] > 0 and snap["idle"] >= 0
