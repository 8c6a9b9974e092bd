"""Reward hacks against function-call judging, each a real candidate on every backend.

Every attack is a submission to a real function problem whose only passing answer is a
random token stored in the test code (``fn_judging.SECRET``): an accept would mean the
candidate reached the jury's side or forged the verdict. Each test asserts the verdict is
not AC (and, where the outcome is determined, which verdict it is), then that the same
backend still judges honest answers AC. The classes are listed, with these test names, in
sandboxes/THREAT_MODEL.md ("Function-call judging").
"""

from __future__ import annotations

import pytest

from tests.security.fn_judging import ADD_AC, SECRET, FnJudging
from verifier.models import Verdict

SECRET_PROBLEMS = ["secret-asserts", "secret-humaneval", "secret-taco"]

# Shared by attacks that search for the token wherever they can reach.
FIND = r'''
import re as _re
_PAT = _re.compile(rb"fnsecret-[0-9a-f]{24}")

def _find(blob):
    if isinstance(blob, str):
        blob = blob.encode("utf-8", "ignore")
    m = _PAT.search(blob or b"")
    return m.group().decode() if m else None
'''


@pytest.fixture(scope="module")
def fn(backend):
    return FnJudging(backend)


def _attack(fn, problem: str, code: str, expect: set[Verdict] | None = None):
    verdict, verdicts = fn.overall(problem, code)
    assert verdict != Verdict.AC, f"{fn.handle.name}: attack accepted on {problem}: {verdicts}"
    if expect is not None:
        assert verdict in expect, f"{fn.handle.name}: expected {expect}, got {verdicts}"
    fn.assert_healthy()
    return verdicts


# -- the seven classes that got AC before the boundary -------------------------------------

MARKER_FROM_FRAMES = FIND + r'''
import gc, sys, os

def answer():
    # Whatever the caller's frames, globals and every live object hold; then the old
    # success marker trick: print anything marker-like and leave with status 0.
    f = sys._getframe()
    while f is not None:
        for d in (f.f_locals, f.f_globals):
            for v in list(d.values()):
                s = _find(repr(v)[:200000])
                if s:
                    return s
        s = _find(repr(f.f_code.co_consts))
        if s:
            return s
        f = f.f_back
    for o in gc.get_objects():
        try:
            s = _find(repr(o)[:20000])
        except Exception:
            continue
        if s:
            return s
    print("__tests_done_" + "0" * 32, flush=True)
    os._exit(0)
'''


@pytest.mark.parametrize("problem", SECRET_PROBLEMS)
def test_marker_and_answers_from_frames_and_heap(fn, problem):
    _attack(fn, problem, MARKER_FROM_FRAMES, {Verdict.RE})


REPLACE_EXEC = r'''
import builtins, sys

def _nothing(*a, **k):
    return None

builtins.exec = _nothing
builtins.eval = _nothing
builtins.compile = _nothing
builtins.AssertionError = type("AssertionError", (Exception,), {})
main = sys.modules["__main__"]
for name in list(vars(main)):
    if callable(getattr(main, name)) and not name.startswith("__"):
        setattr(main, name, _nothing)

def answer():
    return "wrong"
'''


@pytest.mark.parametrize("problem", SECRET_PROBLEMS)
def test_replacing_exec_and_the_harness_helpers(fn, problem):
    _attack(fn, problem, REPLACE_EXEC)


READ_TEST_FILES = FIND + r'''
import os

def _scan(top, budget=[4000]):
    for root, dirs, files in os.walk(top):
        for name in files:
            budget[0] -= 1
            if budget[0] < 0:
                return None
            try:
                with open(os.path.join(root, name), "rb") as f:
                    s = _find(f.read(1 << 22))
            except OSError:
                continue
            if s:
                return s
    return None

def answer():
    for top in (".", os.environ.get("TMPDIR", "/tmp"), os.environ.get("HOME", "/"), "/tmp", "/dev/shm"):
        s = _scan(top)
        if s:
            return s
    for fd in range(0, 256):
        try:
            s = _find(os.pread(fd, 1 << 20, 0))
        except OSError:
            continue
        if s:
            return s
    return "not found"
'''


@pytest.mark.parametrize("problem", SECRET_PROBLEMS)
def test_reading_the_tests_from_files_and_fds(fn, problem):
    _attack(fn, problem, READ_TEST_FILES, {Verdict.WA})


CALLER_SOURCE = FIND + r'''
import inspect, sys, dis, io

def answer():
    for info in inspect.stack():
        try:
            s = _find(inspect.getsource(info.frame))
        except Exception:
            s = None
        if s:
            return s
        out = io.StringIO()
        try:
            dis.dis(info.frame.f_code, file=out)
        except Exception:
            pass
        s = _find(out.getvalue())
        if s:
            return s
    for mod in list(sys.modules.values()):
        try:
            s = _find(inspect.getsource(mod))
        except Exception:
            s = None
        if s:
            return s
    return "not found"
'''


@pytest.mark.parametrize("problem", SECRET_PROBLEMS)
def test_reading_assertions_from_caller_source_and_bytecode(fn, problem):
    _attack(fn, problem, CALLER_SOURCE, {Verdict.WA})


EQ_ALWAYS_TRUE = r'''
class Anything:
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = object.__hash__

def answer():
    return Anything()
'''


@pytest.mark.parametrize("problem", SECRET_PROBLEMS)
def test_object_equal_to_everything(fn, problem):
    verdicts = _attack(fn, problem, EQ_ALWAYS_TRUE, {Verdict.WA})
    assert "plain data" in verdicts[0].message


# -- more ways around the verdict ------------------------------------------------------------

FAKE_RECORDS = r'''
import os, sys
import __main__

# The harness's own record format, built with the codec the candidate's process holds.
record = __main__.encode(("AC", "", 0.0, 0, 0.0, 1.0))
for fd in range(0, 1024):
    for data in (record, b"AC\n", b"\n__tests_done_\n"):
        try:
            os.write(fd, data)
        except OSError:
            pass
sys.stdout.buffer.write(record)
sys.stdout.flush()
os._exit(0)
'''


def test_forged_verdict_records_on_every_fd_then_exit_0(fn):
    _attack(fn, "secret-asserts", FAKE_RECORDS, {Verdict.RE})


FORGED_REPLY = r'''
import os, struct
import __main__

# Answer the harness's request with a reply shaped like a verdict, then with a guess.
for msg in (("AC", "", 0.0, 0), ("ok", "guess", {})):
    data = __main__.encode(msg)
    os.write(4, struct.pack("<I", len(data)) + data)

def answer():
    return "wrong"
'''


def test_forged_replies_on_the_channel(fn):
    _attack(fn, "secret-asserts", FORGED_REPLY, {Verdict.RE, Verdict.WA})


PATCH_MODULES = r'''
import sys, types, builtins, os

fake = types.ModuleType("json")
fake.loads = lambda *a, **k: "fnsecret-"
sys.modules["json"] = fake
sys.modules["builtins"] = types.ModuleType("builtins")
sys.modules["__main__"] = types.ModuleType("__main__")
builtins.__import__ = lambda *a, **k: fake
os._exit = lambda code: None
os.write = lambda fd, data: len(data)

def answer():
    return "wrong"
'''


def test_patching_sys_modules_builtins_and_os(fn):
    _attack(fn, "secret-taco", PATCH_MODULES)


@pytest.mark.parametrize("exc", ["SystemExit(0)", "KeyboardInterrupt()", "GeneratorExit()",
                                 "type('Quiet', (BaseException,), {})()"])
@pytest.mark.parametrize("where", ["call", "load"])
def test_raising_base_exceptions(fn, exc, where):
    code = (f"raise {exc}\n" if where == "load" else "") + f"def answer():\n    raise {exc}\n"
    verdicts = _attack(fn, "secret-asserts", code, {Verdict.RE})
    assert "raised" in verdicts[0].message


SIGNALS_THEN_SPIN = r'''
import signal
for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGXCPU, signal.SIGHUP, signal.SIGALRM):
    signal.signal(sig, signal.SIG_IGN)

def answer():
    while True:
        pass
'''


def test_signal_handlers_do_not_stop_the_time_limit(fn):
    _attack(fn, "secret-asserts", SIGNALS_THEN_SPIN, {Verdict.TLE})


STOP_THE_HARNESS = r'''
import os, signal

def answer():
    os.kill(os.getppid(), signal.SIGSTOP)
    return "wrong"
'''


def test_stopping_the_harness(fn):
    # The runner notices the stopped main process and ends the run then, not at the run's
    # wall limit (3 x (2T + 1) s): the message says which rule ended it.
    verdicts = _attack(fn, "secret-asserts", STOP_THE_HARNESS, {Verdict.TLE})
    assert "stopped" in verdicts[0].message, verdicts


STOP_THE_HARNESS_IN_TURNS = r'''
import os, signal, time

_harness = os.getppid()
if os.fork() == 0:
    # Stopped most of the time, continued now and then: no single stop lasts long.
    while True:
        os.kill(_harness, signal.SIGSTOP)
        time.sleep(0.2)
        os.kill(_harness, signal.SIGCONT)
        time.sleep(0.005)

def answer():
    time.sleep(100)
'''


def test_stopping_the_harness_in_turns(fn):
    verdicts = _attack(fn, "secret-asserts", STOP_THE_HARNESS_IN_TURNS, {Verdict.TLE})
    assert "stopped" in verdicts[0].message, verdicts


STOP_WITH_DECOYS = r'''
import os, signal, time

# Orphans re-parented outside the run's cgroup, sleeping, so that a watch that took "the
# process whose parent is outside the cgroup" for the main one sampled a decoy (a review:
# 15 s a test instead of 0.7 s, whenever a decoy came first in the pid set's order).
for _ in range(8):
    if os.fork() == 0:
        if os.fork() == 0:
            time.sleep(100)
        os._exit(0)
    os.wait()

def answer():
    os.kill(os.getppid(), signal.SIGSTOP)
    time.sleep(100)
'''


def test_stopping_the_harness_behind_decoys(fn):
    verdicts = _attack(fn, "secret-asserts", STOP_WITH_DECOYS, {Verdict.TLE})
    assert "stopped" in verdicts[0].message, verdicts


NOT_READING_REQUESTS = r'''
import os

# Keep the request pipe open but never read it again: the callee reads a pipe that stays
# silent instead, so a request larger than the pipe's buffer cannot be written in full.
_kept = os.dup(3)
_r, _w = os.pipe()
os.dup2(_r, 3)

def total(xs):
    return sum(xs)
'''


def test_not_reading_a_large_request(fn):
    # Before: the harness blocked in write() until the run's wall limit. Now its writes
    # share the budget of its reads (max(3T, T + 2) s), and it says why it stopped waiting.
    verdicts = _attack(fn, "big-arg", NOT_READING_REQUESTS, {Verdict.TLE})
    assert "did not read" in verdicts[0].message, verdicts


def test_a_large_request_is_judged(fn):
    verdict, verdicts = fn.overall("big-arg", "def total(xs):\n    return sum(xs)\n")
    assert verdict == Verdict.AC, verdicts


KILL_THE_HARNESS = r'''
import os, signal

def answer():
    os.kill(os.getppid(), signal.SIGKILL)
    return "wrong"
'''


def test_killing_the_harness(fn):
    verdicts = _attack(fn, "secret-asserts", KILL_THE_HARNESS, {Verdict.RE})
    assert "killed" in verdicts[0].message


INTERRUPT_THE_HARNESS = r'''
import os, signal

_harness, _me = os.getppid(), os.getpid()
if os.fork() == 0:
    # Once the candidate is killed at the test's end, interrupt the harness until it is gone:
    # a KeyboardInterrupt in its epilogue once turned the WA it was writing into IE (reward
    # null, the sample dropped instead of scored 0). Found by a hostile review.
    try:
        while os.getppid() == _me:
            pass
        while True:
            os.kill(_harness, signal.SIGINT)
    finally:
        os._exit(0)

def answer():
    os.kill(_harness, signal.SIGINT)  # and once while the jury code waits for the reply
    return "wrong"
'''


def test_interrupting_the_harness(fn):
    expect = {Verdict.WA}
    if "signals" in getattr(fn.handle.backend, "not_covered", {}):
        expect.add(Verdict.IE)  # lambda-aws: the orphan shares the runtime's uid (as above)
    for _ in range(3):  # the helper races the harness's end: several rounds
        _attack(fn, "secret-asserts", INTERRUPT_THE_HARNESS, expect)
    # The harness ignores SIGINT; the candidate's interpreter has python3's handler.
    default = ("import signal\ndef add(a, b):\n"
               "    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler\n"
               "    return a + b\n")
    assert fn.overall("add", default)[0] == Verdict.AC


WORK_IN_A_GRANDCHILD = r'''
import os, time

# A right answer, after 1.6 s of CPU (the limit is 0.4 s) done in a double-forked child the
# candidate waits for on a pipe and never reaps: the harness meters the candidate's own
# process, so that once was AC. Found by a hostile review.
_r, _w = os.pipe()
if os.fork() == 0:
    if os.fork() == 0:
        t = time.process_time()
        while time.process_time() - t < 1.6:
            pass
        os.write(_w, b"x")
        os._exit(0)
    os._exit(0)
os.wait()
os.read(_r, 1)

def add(a, b):
    return a + b
'''


def test_cpu_spent_in_processes_the_candidate_started(fn):
    verdict, verdicts = fn.overall("add-short", WORK_IN_A_GRANDCHILD)  # CPU limit 0.4 s
    assert verdict == Verdict.TLE, verdicts
    assert "started" in verdicts[0].message and verdicts[0].time_s > 0.4, verdicts
    fn.assert_healthy()


def test_stop_iteration_inside_the_jurys_iteration(fn):
    # Raised into `all(map(...))`, a StopIteration ends the map: all() of nothing passed.
    for exc in ("StopIteration", "StopAsyncIteration"):
        verdicts = _attack(fn, "add-map", f"def add(a, b):\n    raise {exc}\n", {Verdict.RE})
        assert exc in verdicts[0].message
    assert fn.overall("add-map", ADD_AC)[0] == Verdict.AC


ROTATE_AC = "def rotate(m):\n    return [list(r) for r in zip(*m[::-1])]\n"
FORGED_HUGE_REPLY = r'''
import os, struct

def rotate(m):
    # a reply frame written by hand: one bytes value of 33 MiB (over the codec's 32 MiB)
    n = 33 * (1 << 20) + 5
    body = (b"t" + struct.pack("<I", 3) + b"s" + struct.pack("<I", 2) + b"ok"
            + b"b" + struct.pack("<I", n) + b"\0" * n + b"d" + struct.pack("<I", 0))
    view = memoryview(struct.pack("<I", len(body)) + body)
    while view:
        view = view[os.write(4, view):]
    while True:
        if not os.read(3, 1 << 20):
            os._exit(0)
'''


@pytest.mark.parametrize("code", [
    "def rotate(m):\n    x = 0\n    for _ in range(9998):\n        x = [x]\n    return x\n",
    "def rotate(m):\n    return [0] * ((1 << 21) - 7)\n",
    FORGED_HUGE_REPLY,
], ids=["deep", "items", "forged-bytes"])
def test_values_too_big_to_send_back(fn, code):
    # A value that fits in the candidate's reply but not in the call that sends it back was
    # once blamed on the jury (IE: reward null, the sample dropped). A review's finding.
    _attack(fn, "round-trip", code, {Verdict.RE, Verdict.WA})
    assert fn.overall("round-trip", ROTATE_AC)[0] == Verdict.AC


PROXIES = {
    "eq_hash": "class P:\n    def __eq__(s, o): return True\n    def __hash__(s): return hash(o_secret)\n",
    "len_iter_bool": ("class P:\n    def __len__(s): return 33\n    def __iter__(s): return iter('fnsecret-')\n"
                      "    def __bool__(s): return True\n    def __eq__(s, o): return True\n"),
    "str_subclass": "class P(str):\n    def __eq__(s, o): return True\n    def __ne__(s, o): return False\n    __hash__ = str.__hash__\n",
    "int_subclass": "class P(int):\n    def __eq__(s, o): return True\n    __hash__ = int.__hash__\n",
    "list_subclass": "class P(list):\n    def __eq__(s, o): return True\n",
    "tuple_of_proxy": "class Q:\n    def __eq__(s, o): return True\nP = lambda: (Q(),)\n",
}


@pytest.mark.parametrize("name", sorted(PROXIES))
def test_proxies_and_subclasses_with_custom_comparisons(fn, name):
    code = "o_secret = 'x'\n" + PROXIES[name] + "def answer():\n    return P()\n"
    _attack(fn, "secret-asserts", code, {Verdict.WA})


def test_generator_that_never_ends(fn):
    _attack(fn, "secret-asserts", "def answer():\n    while True:\n        yield 'fnsecret-'\n", {Verdict.WA})


@pytest.mark.parametrize("size", ["huge_str", "many_items", "deep"])
def test_huge_or_deeply_nested_return_values(fn, size):
    body = {"huge_str": "return 'x' * (40 << 20)",
            "many_items": "return [None] * (5 << 20)",
            "deep": "x = []\n    for _ in range(100000):\n        x = [x]\n    return x"}[size]
    _attack(fn, "secret-asserts", f"def answer():\n    {body}\n", {Verdict.RE, Verdict.MLE})


FORK_REPORTS_SUCCESS = r'''
import os, time
import __main__

def answer():
    if os.fork() == 0:
        record = __main__.encode(("AC", "", 0.0, 0, 0.0, 1.0))
        for fd in range(0, 256):
            try:
                os.write(fd, record)
            except OSError:
                pass
        try:
            os.kill(os.getppid(), 9)  # our parent, the candidate: leave the harness a corpse?
        except OSError:
            pass
        time.sleep(30)
        os._exit(0)
    return "wrong"
'''


def test_forked_child_reporting_success(fn):
    # TLE too: when the child's record lands in the reply pipe before the candidate's reply,
    # it reads as the start of a frame the child (still holding the pipe) never finishes,
    # and the harness stops waiting after its budget (seen once on lambda, a timing race)
    expect = {Verdict.WA, Verdict.RE, Verdict.TLE}
    if "signals" in getattr(fn.handle.backend, "not_covered", {}):
        # lambda-aws: runs share the handler's uid, so the orphan's kill of its (re-parented)
        # parent can hit the runtime itself: that invocation is IE (THREAT_MODEL.md, Lambda)
        expect.add(Verdict.IE)
    _attack(fn, "secret-asserts", FORK_REPORTS_SUCCESS, expect)


HARNESS_PROC = FIND + r'''
import ctypes, os, sys

def _read(path, n=1 << 22):
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a pipe must not block the hunt
    except OSError as e:
        sys.stderr.write(f"{path}: {type(e).__name__}\n")
        return b""
    try:
        return os.read(fd, n)
    except OSError:
        return b""
    finally:
        os.close(fd)

def _mem(pid):
    maps = _read(f"/proc/{pid}/maps").decode(errors="replace")
    try:
        fd = os.open(f"/proc/{pid}/mem", os.O_RDONLY)
    except OSError as e:
        sys.stderr.write(f"mem: {type(e).__name__}\n")
        return None
    for line in maps.splitlines():
        lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
        try:
            s = _find(os.pread(fd, min(hi - lo, 1 << 26), lo))
        except OSError:
            continue
        if s:
            return s
    return None

class IOV(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]

def _vm_readv(pid):
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(1 << 16)
    local = IOV(ctypes.cast(buf, ctypes.c_void_p), len(buf))
    for line in _read(f"/proc/{pid}/maps").decode(errors="replace").splitlines():
        lo = int(line.split()[0].split("-")[0], 16)
        remote = IOV(lo, len(buf))
        if libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) > 0:
            s = _find(buf.raw)
            if s:
                return s
    return None

def answer():
    pids = [os.getppid()] + [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]
    for pid in pids:
        for name in ("cmdline", "environ", "stat", "status"):
            s = _find(_read(f"/proc/{pid}/{name}"))
            if s:
                return s
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            fds = []
        for fd in fds:
            s = _find(_read(f"/proc/{pid}/fd/{fd}"))
            if s:
                return s
        s = _mem(pid) or _vm_readv(pid)
        if s:
            return s
    return "not found"
'''


def test_reading_the_harness_through_proc(fn):
    _attack(fn, "secret-asserts", HARNESS_PROC, {Verdict.WA})


@pytest.mark.parametrize("where", ["load", "call"])
def test_exit_0_early(fn, where):
    code = ("import os\nos._exit(0)\n" if where == "load"
            else "import os\ndef answer():\n    os._exit(0)\n")
    _attack(fn, "secret-asserts", code, {Verdict.RE})


CLOSE_CHANNEL = r'''
import os
os.close(3)
os.close(4)

def answer():
    return "wrong"
'''


def test_closing_the_channel(fn):
    _attack(fn, "secret-asserts", CLOSE_CHANNEL, {Verdict.RE})


# -- honest answers that cross the boundary ---------------------------------------------------

def test_class_solution_is_judged_by_calling_the_method(fn):
    verdict, verdicts = fn.overall("secret-taco", "class Solution:\n    def answer(self):\n"
                                   f"        return {SECRET!r}\n")
    assert verdict == Verdict.AC, verdicts
    verdict, verdicts = fn.overall("secret-taco", "class Solution:\n    def answer(self):\n"
                                   "        return 'fnsecret-' + '0' * 24\n")
    assert verdict == Verdict.WA, verdicts


SLEEPER = r'''
import time

def add(a, b):
    time.sleep(3600)
'''


def test_a_sleeping_candidate_is_stopped_by_the_harness_wall_budget(fn):
    """A candidate that sleeps uses no CPU, so only wall time stops it. The harness stops
    waiting after the stdio rule's wall limit (3x the CPU limit, at least +2 s) and says so;
    before, the run's own wall limit (3x the harness's 2T+1 s) held the slot (a hostile
    review pushed a batch's correct submissions past its deadline with sleepers). The run's
    idleness limit (its CPU limit, 2T+1 = 3 s, of almost no CPU) ends at the same moment, so
    either rule may say so first; both stop it long before the run's wall limit (9 s)."""
    verdicts = _attack(fn, "add", SLEEPER, {Verdict.TLE})
    assert any(why in verdicts[0].message for why in ("did not answer", "idleness limit")), verdicts[0]
    assert verdicts[0].wall_time_s < 6.0, verdicts[0]
    assert len(verdicts) == 2 and all(v.verdict == Verdict.TLE for v in verdicts), verdicts
