"""The zygote's quiet end: which programs may end by _exit after the flush.

The differential corpus (test_pyfork_differential.py) shows that ending either way gives
python3's output; this file shows the fast way is really taken for ordinary programs (so
the differential does not pass because nothing changed) and refused for every program
where the interpreter's finalization could run code or write (so it cannot lose output).
Each program runs in a fresh ``python3 -S -B`` that loads zygote.py's exit handling, freezes
what exists (as the zygote does before it forks), runs the program and asks the check.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess

import pytest

from sandboxes.languages import get_language
from sandboxes.runner import pyfork
from sandboxes.runner.pyfork import ZYGOTE
from tests.sandboxes.pyfork_corpus import ENDINGS, BY_DESIGN, READERS, STDIN, WRITERS

PY = get_language("python").run_argv[0]

DRIVER = r"""
import gc, importlib.util, io, json, sys
spec = importlib.util.spec_from_file_location("zygote_exit", sys.argv[1])
zygote = importlib.util.module_from_spec(spec)
spec.loader.exec_module(zygote)
report = open(int(sys.argv[3]), "w")
for name in ("importlib", "importlib.util", "importlib._abc", "json", "json.decoder", "json.scanner",
             "json.encoder", "zygote_exit", "contextlib", "collections", "functools", "keyword",
             "operator", "reprlib", "types", "itertools", "re", "enum"):
    sys.modules.pop(name, None)
source = sys.argv[2]
code = compile(source, "main.py", "exec")
hooks = zygote._names_audit_hooks(code)
gc.freeze()
# made after the freeze, as the zygote makes each run's streams
sys.stdout = io.TextIOWrapper(io.open(1, "wb", -1, closefd=False), "utf-8", line_buffering=False)
sys.stderr = io.TextIOWrapper(io.open(2, "wb", -1, closefd=False), "utf-8", line_buffering=True)
sys.stdin = io.TextIOWrapper(io.open(0, "rb", -1, closefd=False), "utf-8")
streams = (sys.stdout, sys.stderr)
run = zygote.run_state(streams)
main = {"__name__": "__main__", "__builtins__": __builtins__}
held = []  # as in the zygote: the exception (and its traceback's frames) lives to the end
try:
    exec(code, main)
except BaseException as exc:
    held.append(exc)
    sys.last_value = exc
    del exc
quiet = (not hooks) and (sys.argv[4:] == ["0"] or zygote._quiet_check(run))
report.write(json.dumps(quiet))
report.flush()
sys.stdout.flush()
import os
os._exit(0)
"""


def ends_quietly(source: str) -> bool:
    r, w = os.pipe()
    try:
        proc = subprocess.run([PY, "-S", "-B", "-c", DRIVER, str(ZYGOTE), source, str(w)], input=STDIN.encode(),
                              capture_output=True, timeout=60, pass_fds=(w,))
    finally:
        os.close(w)
    with os.fdopen(r) as f:
        out = f.read()
    assert out, proc.stderr.decode()[-2000:]
    return json.loads(out)


ORDINARY = {f"{rn}-{wn}": READERS[rn] + WRITERS[wn] for rn in READERS for wn in WRITERS}
ORDINARY.update({
    "imports": "import math, heapq, bisect, collections, itertools, functools, re, string\nprint(math.gcd(4, 6))\n",
    "classes": "class P:\n    __slots__ = ('x',)\n    def __init__(self, x):\n        self.x = x\nps = [P(i) for i in range(1000)]\nprint(len(ps))\n",
    "recursion": "import sys\nsys.setrecursionlimit(10000)\ndef f(n):\n    return 0 if n == 0 else 1 + f(n - 1)\nprint(f(5000))\n",
    "genexpr_left": "it = (int(t) for t in input().split())\nprint(next(it))\n",
    "uncaught": "print(1)\n[][1]\n",
    "exit_2": "import sys\nprint(1)\nsys.exit(2)\n",
    "weakref_plain": "import weakref\nclass O:\n    pass\no = O()\nr = weakref.ref(o)\nprint(r() is o)\n",
    "abc_isinstance": "import collections.abc\nprint(isinstance([], collections.abc.Sequence))\n",
    "lru_cache": "from functools import lru_cache\n@lru_cache(None)\ndef f(n):\n    return n if n < 2 else f(n - 1) + f(n - 2)\nprint(f(80))\n",
    "dataclass": "from dataclasses import dataclass\n@dataclass\nclass E:\n    a: int\nprint(E(1))\n",
})

RISKY = {name: ENDINGS[name] for name in ENDINGS if name.startswith("q_") and name not in (
    # these end quietly by design: nothing runs at their exit (the differential checks them)
    "q_reader_open0", "q_reader_rb", "q_weakref_no_callback", "q_genexpr_suspended", "q_exit_true",
    "q_exit_3", "q_exit_str", "q_stdout_closed", "q_unflushed_big",
    "q_stdout_none", "q_big_heap")}
RISKY.update({name: ENDINGS[name] for name in ENDINGS if name.startswith(("del_", "fin_", "atexit"))})
RISKY["big_heap"] = ENDINGS["q_big_heap"]
# The red team's: each must take the full finalization (the scan must not run their code).
# (rt_module_class_getattribute hooks every sys lookup, the driver's own too: the
# differential corpus checks it through the real zygote.)
RISKY.update({name: ENDINGS[name] for name in ENDINGS if name.startswith("rt_") and name not in (
    "rt_scan_getattr_prints_answer", "rt_nested_lambdas_520", "rt_nested_lambdas_1000",
    "rt_module_class_getattribute")})
# (the frozen-object ones: the zygote-frame ones rewrite whatever calls them, here the
# driver, and the recursion-limit ones end quietly)
RISKY.update({name: src for name, src in BY_DESIGN.items() if "freeze" in name or "class_swap" in name})
ORDINARY["rt_scan_getattr_prints_answer"] = ENDINGS["rt_scan_getattr_prints_answer"]
ORDINARY["rt_nested_lambdas_1000"] = ENDINGS["rt_nested_lambdas_1000"]


def test_the_scan_runs_none_of_the_programs_code():
    """Programs whose hooks print when the check looks at them (a module's __getattr__, a
    colliding dict key's __eq__, a weakref subclass's __callback__ property): the driver's output with the check must equal its output
    without it, byte for byte."""
    for name in ("rt_scan_getattr_prints_answer", "rt_scan_dict_eq_prints_answer", "rt_sys_dict_eq",
                 "rt_weakref_subclass_callback_property"):
        outs = []
        for check in ("1", "0"):
            r, w = os.pipe()
            try:
                # One hash seed for both runs: how often a colliding key's __eq__ runs depends on
                # where str hashes put the dict's keys (it differed between two seeds in a CI run).
                proc = subprocess.run([PY, "-S", "-B", "-c", DRIVER, str(ZYGOTE), ENDINGS[name], str(w), check],
                                      input=STDIN.encode(), capture_output=True, timeout=60, pass_fds=(w,),
                                      env={**os.environ, "PYTHONHASHSEED": "1"})
            finally:
                os.close(w)
            with os.fdopen(r) as f:
                assert f.read() in ("true", "false"), proc.stderr.decode()[-2000:]
            outs.append(proc.stdout)
        assert outs[0] == outs[1], (name, outs)


def test_not_forkable_constants_agree():
    spec = importlib.util.spec_from_file_location("zygote_consts", ZYGOTE)
    zygote = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(zygote)
    assert (zygote.NOT_FORKABLE, zygote.NOT_FORKABLE_MESSAGE) == (pyfork.NOT_FORKABLE, pyfork.NOT_FORKABLE_MESSAGE)


def test_the_sets_are_not_trivial():
    assert len(ORDINARY) >= 80 and len(RISKY) >= 40


@pytest.mark.parametrize("name", sorted(ORDINARY))
def test_ordinary_programs_end_quietly(name):
    assert ends_quietly(ORDINARY[name]) is True


@pytest.mark.parametrize("name", sorted(RISKY))
def test_programs_with_work_at_exit_take_the_full_finalization(name):
    assert ends_quietly(RISKY[name]) is False
