"""What one run leaves in the slot's zygote, read by a later run: the zygote's memory is
every child's memory (copy-on-write), readable through /proc/self/mem. No earlier run's box
path may be found there, and the zygote is replaced after ``max_runs`` forks (bounded
growth, a new str hash seed per generation).

Needs root (the runner switches runs to a run uid), like the local backend.
"""

from __future__ import annotations

import os
import re

import pytest

from tests.sandboxes.test_pyfork_runner import RUN_UID, compile_py, run_py, runner, tmp_path  # noqa: F401

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the runner needs root to switch runs to a uid")

# Every distinct box path of this scratch root found in the child's own writable memory
# (heap, anonymous mappings, stacks): what it inherited from the zygote, plus its own.
SCAN = r"""import os, re
root = os.path.dirname(os.getcwd()).encode()
pat = re.compile(re.escape(root) + rb'/box-[0-9]+-[0-9]+')
found = set()
mem = open('/proc/self/mem', 'rb', buffering=0)
for line in open('/proc/self/maps'):
    p = line.split()
    lo, hi = (int(x, 16) for x in p[0].split('-'))
    name = p[5] if len(p) > 5 else ''
    if 'r' not in p[1] or 'w' not in p[1] or name.startswith('/') or name.startswith('[v'):
        continue
    try:
        mem.seek(lo)
        found.update(pat.findall(mem.read(hi - lo)))
    except OSError:
        pass
print(os.getcwd())
for f in sorted(found):
    print(f.decode())
"""

PROBE = "import os, sys\nprint(os.getcwd(), os.environ['HOME'], os.environ['TMPDIR'], sys.argv[0], sys.path[0])\n"


def test_no_earlier_box_path_in_a_childs_memory(runner):
    probe = compile_py(runner, PROBE)
    earlier = set()
    for _ in range(60):
        r = run_py(runner, probe)
        assert r["status"] == "OK", r
        earlier.add(r["stdout"].split()[0].decode())
    assert len(earlier) == 60  # each run had its own box
    scan = compile_py(runner, SCAN)
    for _ in range(2):  # also right after a run that was itself a scanner
        r = run_py(runner, scan)
        assert r["status"] == "OK", r
        own, *found = r["stdout"].decode().split()
        leaked = set(found) - {own}
        assert not leaked, f"{len(leaked)} earlier box paths readable by a later run, e.g. {sorted(leaked)[:3]}"
        earlier.add(own)
    assert earlier and all(re.fullmatch(r"/.*/box-\d+-\d+", b) for b in earlier)


def test_zygote_is_replaced_after_max_runs_with_a_new_hash_seed(runner):
    probe = compile_py(runner, "import os\nprint(os.getppid(), hash('seed probe'))\n")
    run_py(runner, probe)  # starts the zygote
    runner.pyfork.max_runs = 3
    runner.pyfork.runs = 0
    seen = []
    for _ in range(7):
        r = run_py(runner, probe)
        assert r["status"] == "OK", r
        ppid, h = r["stdout"].split()
        seen.append((int(ppid), int(h)))
    gens = [seen[0:3], seen[3:6], seen[6:7]]
    for gen in gens:  # one zygote, one seed within a generation
        assert len(set(gen)) == 1, seen
    assert len({g[0][0] for g in gens}) == 3, seen  # a new zygote each generation
    assert len({g[0][1] for g in gens}) > 1, seen  # the seed is drawn again (2^-64 to fail)
