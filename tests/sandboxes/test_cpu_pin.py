"""Slots pinned one core each (sandboxes/backends/cpu_pin.py): which core, and that runs
really stay on it, on the local and docker backends (the attack that tries to leave is in
tests/security/test_attacks.py)."""

from __future__ import annotations

import json

import pytest

from sandboxes.backends.cpu_pin import slot_cpus, usable_cpus
from sandboxes.backends.local import LocalBackend
from sandboxes.backends.local_slot import bwrap_argv
from sandboxes.types import Batch, RunSpec, Source, Status

# Each run prints its uid (names its slot) and the CPUs it may run on, and spins briefly so
# that a batch keeps both slots busy.
PROBE = "import os\nprint(os.getuid(), sorted(os.sched_getaffinity(0)))\nsum(range(300_000))\n"
CPP_PROBE = r"""
#include <sched.h>
#include <unistd.h>
#include <cstdio>
int main() {
    cpu_set_t set; CPU_ZERO(&set);
    sched_getaffinity(0, sizeof set, &set);
    printf("%d [", (int)getuid());
    const char *sep = "";
    for (int i = 0; i < CPU_SETSIZE; i++) if (CPU_ISSET(i, &set)) { printf("%s%d", sep, i); sep = ", "; }
    printf("]\n");
    volatile long s = 0; for (long i = 0; i < 3000000; i++) s += i;
}
"""


def test_one_core_per_slot_while_cores_suffice():
    assert slot_cpus(2, cpus=[0, 1]) == [0, 1]
    assert slot_cpus(2, cpus=[3, 1, 7]) == [1, 3]  # the usable set, in order
    assert slot_cpus(1, cpus=[5]) == [5]


def test_more_slots_than_cores_or_disabled_pins_nothing():
    assert slot_cpus(3, cpus=[0, 1]) == [None, None, None]
    assert slot_cpus(2, enabled=False, cpus=[0, 1]) == [None, None]
    assert slot_cpus(0, cpus=[0, 1]) == []


def test_the_agent_is_told_its_core_only_when_pinned():
    argv = bwrap_argv("/usr/bin/bwrap", uid=61000, fd=3, scratch_size_mb=64, cpu=1)
    assert argv[argv.index("--cpu") + 1] == "1"
    assert "--cpu" not in bwrap_argv("/usr/bin/bwrap", uid=61000, fd=3, scratch_size_mb=64)


def _affinity_by_uid(results) -> dict[int, set[tuple[int, ...]]]:
    seen: dict[int, set[tuple[int, ...]]] = {}
    for r in results:
        assert r.status == Status.OK, r
        uid, cpus = r.stdout.decode().split(" ", 1)
        seen.setdefault(int(uid), set()).add(tuple(json.loads(cpus)))
    return seen


needs_two_cores = pytest.mark.skipif(len(usable_cpus()) < 2, reason="needs 2 usable CPUs")


@needs_two_cores
@pytest.mark.parametrize("language,code", [("python", PROBE), ("cpp", CPP_PROBE)], ids=["python", "cpp"])
async def test_each_slots_runs_stay_on_its_own_core(language, code):
    # Python runs are forks of the slot's fork server, C++ runs come from its spawn server:
    # both inherit the agent's core. Two slots, two different single cores.
    async with LocalBackend(capacity=2, selftest=False) as be:
        res = await be.run_batch(Batch(program=Source(language=language, code=code),
                                       runs=[RunSpec(id=str(i)) for i in range(12)]))
        assert res.compile is not None and res.compile.status == Status.OK, res.compile
        seen = _affinity_by_uid(res.runs)
        assert set(seen) <= set(be.run_uids)
        for uid, sets in seen.items():
            assert len(sets) == 1 and len(next(iter(sets))) == 1, (uid, sets)
        cores = {next(iter(sets)) for sets in seen.values()}
        assert len(cores) == len(seen), seen  # no two slots share a core
        assert {c for (c,) in cores} <= set(usable_cpus())


@needs_two_cores
async def test_more_slots_than_cores_run_unpinned():
    n = len(usable_cpus()) + 1
    async with LocalBackend(capacity=n, selftest=False) as be:
        res = await be.run_batch(Batch(program=Source(language="python", code=PROBE),
                                       runs=[RunSpec(id=str(i)) for i in range(2 * n)]))
        for sets in _affinity_by_uid(res.runs).values():
            assert sets == {tuple(usable_cpus())}, sets


@needs_two_cores
async def test_pinning_can_be_turned_off():
    async with LocalBackend(capacity=2, selftest=False, pin_cpus=False) as be:
        res = await be.run_batch(Batch(program=Source(language="python", code=PROBE),
                                       runs=[RunSpec(id=str(i)) for i in range(4)]))
        for sets in _affinity_by_uid(res.runs).values():
            assert sets == {tuple(usable_cpus())}, sets


@needs_two_cores
def test_the_shared_backends_pin_their_slots(backend):
    # The suites' local backend and docker pool (CPU-count slots) as they serve every other
    # test: each slot's runs on one core, no core shared. Lambda has no slots to pin.
    if backend.name not in ("local", "docker"):
        pytest.skip("no slots of ours to pin")
    res = backend.run(Batch(program=Source(language="python", code=PROBE),
                            runs=[RunSpec(id=str(i)) for i in range(16)]))
    seen = _affinity_by_uid(res.runs)
    assert len(seen) >= 2, seen  # 16 runs of a busy batch reach both slots
    for uid, sets in seen.items():
        assert len(sets) == 1 and len(next(iter(sets))) == 1, (uid, sets)
    assert len({next(iter(sets)) for sets in seen.values()}) == len(seen), seen
