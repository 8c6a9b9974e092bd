"""Attacks from inside a fork-server child, on every backend in SANDBOX_BACKENDS.

A child is a fork of the slot's zygote (where the backend has one; elsewhere the same
programs run on the exec path and must be just as contained). Each attack reports what it
got as JSON; the test asserts every attempt failed, then that the backend still judges.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets

import pytest

from sandboxes.types import Batch, Blob, RunSpec, Source, Status
from tests.sandboxes.backend_fixture import HOST_SECRET, quick_limits
from tests.security.helpers import assert_healthy, assert_no_run_processes_left

PRELUDE = '''
import json, os, sys, signal, ctypes
R = {}
def attempt(name, fn):
    try:
        R[name] = ["ok", repr(fn())[:200]]
    except BaseException as e:
        R[name] = [type(e).__name__, str(e)[:200]]
ZYGOTE = os.getppid()
'''


def _report(backend, body: str, stdin: bytes = b"", **limits) -> dict:
    r = backend.run_code("python", PRELUDE + body + "\nprint(json.dumps(R))\n", stdin,
                         limits=quick_limits(**limits))
    assert r.status == Status.OK, r
    return json.loads(r.stdout.decode().strip().splitlines()[-1])


_FORKED: dict[str, bool] = {}


def forked_only(backend) -> None:
    """Attacks on the zygote itself need one: elsewhere (Lambda) runs are exec'd, and the
    runner's parent there shares the run's uid by design (THREAT_MODEL.md)."""
    if backend.name not in _FORKED:
        r = backend.run_code("python", "import sys\nprint(sys._getframe().f_back is not None)\n")
        _FORKED[backend.name] = r.stdout == b"True\n"
    if not _FORKED[backend.name]:
        pytest.skip(f"{backend.name}: Python runs on the exec path (no fork server)")


def _failed(rep: dict, name: str) -> bool:
    return rep[name][0] != "ok"


def test_child_cannot_reach_the_zygote(backend):
    forked_only(backend)
    rep = _report(backend, '''
for sig in ("SIGKILL", "SIGTERM", "SIGSTOP", "SIGUSR1", "SIGCONT"):
    attempt("kill-" + sig, lambda s=sig: os.kill(ZYGOTE, getattr(signal, s)))
attempt("kill-0", lambda: os.kill(ZYGOTE, 0))
for f in ("mem", "environ", "maps", "fd", "stack", "syscall", "auxv", "pagemap"):
    attempt("proc-" + f, lambda f=f: (os.listdir if f == "fd" else lambda p: open(p, "rb").read(64))(f"/proc/{ZYGOTE}/{f}"))
attempt("fdinfo", lambda: open(f"/proc/{ZYGOTE}/fdinfo/3").read())
attempt("fd-open", lambda: open(f"/proc/{ZYGOTE}/fd/3", "rb"))
libc = ctypes.CDLL(None, use_errno=True)
def ptrace():
    if libc.ptrace(16, ZYGOTE, 0, 0) != 0:  # PTRACE_ATTACH
        raise OSError(ctypes.get_errno(), "ptrace")
attempt("ptrace", ptrace)
def vm_read():
    buf = ctypes.create_string_buffer(16)
    local = (ctypes.c_void_p * 2)(ctypes.cast(buf, ctypes.c_void_p), 16)
    remote = (ctypes.c_void_p * 2)(0x400000, 16)
    if libc.process_vm_readv(ZYGOTE, local, 1, remote, 1, 0) < 0:
        raise OSError(ctypes.get_errno(), "process_vm_readv")
attempt("process_vm_readv", vm_read)
def getfd():
    pidfd = os.pidfd_open(ZYGOTE)  # allowed to anyone; taking an fd through it is not
    fd = libc.syscall(438, pidfd, 3, 0)  # pidfd_getfd
    if fd < 0:
        raise OSError(ctypes.get_errno(), "pidfd_getfd")
    return os.readlink(f"/proc/self/fd/{fd}")
attempt("pidfd_getfd", getfd)
attempt("pidfd_signal", lambda: signal.pidfd_send_signal(os.pidfd_open(ZYGOTE), signal.SIGKILL))
R["ppid_uid"] = os.stat(f"/proc/{ZYGOTE}").st_uid
R["my_uid"] = os.getuid()
''')
    attempts = {k: v for k, v in rep.items() if isinstance(v, list)}
    assert len(attempts) == 20, attempts
    for name, (kind, _msg) in attempts.items():
        assert kind != "ok", f"{name} reached the zygote: {rep[name]}"
    assert rep["ppid_uid"] != rep["my_uid"], "the parent runs as another uid than the run"
    assert_healthy(backend)


def test_child_holds_nothing_of_the_runner_or_other_runs(backend):
    """Neither the previous run's stdin/source nor the host's secrets are anywhere in a
    child's memory (the zygote never reads them), and no fd leads back to the runner."""
    forked_only(backend)
    prev_in, prev_src = secrets.token_hex(16), secrets.token_hex(16)
    for _ in range(4):  # enough runs that every slot saw one
        r = backend.run_code("python", f"import sys\nS = {prev_src[::-1]!r}[::-1]\nprint(len(sys.stdin.read()))\n",
                             prev_in.encode())
        assert r.status == Status.OK, r
    needles = [prev_in, prev_src, HOST_SECRET]
    # The probe holds each needle's first half and only a hash of the second half, so
    # the needle itself is never in the probe's memory unless something else put it there.
    heads = [n.encode()[:len(n) // 2] for n in needles]
    tails = [(len(n) - len(n) // 2, hashlib.sha256(n.encode()[len(n) // 2:]).hexdigest()) for n in needles]
    body = f'''
import hashlib
heads = {heads!r}
tails = {tails!r}
found = set()
with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", 0) as mem:
    for line in maps:
        parts = line.split()
        lo, hi = (int(x, 16) for x in parts[0].split("-"))
        if "r" not in parts[1] or hi - lo > (256 << 20) or (len(parts) > 5 and parts[5] in ("[vvar]", "[vsyscall]")):
            continue
        try:
            mem.seek(lo)
            chunk = mem.read(hi - lo)
        except (OSError, ValueError, OverflowError):
            continue
        for i, (head, (n, digest)) in enumerate(zip(heads, tails)):
            at = chunk.find(head)
            while at >= 0:
                end = at + len(head)
                if hashlib.sha256(chunk[end:end + n]).hexdigest() == digest:
                    found.add(i)
                at = chunk.find(head, at + 1)
R["found"] = sorted(found)
fds = {{}}
for fd in os.listdir("/proc/self/fd"):
    try:
        fds[fd] = os.readlink(f"/proc/self/fd/{{fd}}")
    except OSError:
        pass
R["sockets"] = [t for t in fds.values() if t.startswith("socket:")]
R["nfds"] = len(fds)
import gc
R["gc_sockets"] = sum(1 for o in gc.get_objects() if type(o).__name__ == "socket")
frame = sys._getframe().f_back  # the frames below the submission's own
names = set()
while frame is not None:
    names |= set(frame.f_globals)
    frame = frame.f_back
R["frame_globals"] = sorted(n for n in names if not n.startswith("__"))
'''
    for _ in range(4):
        rep = _report(backend, body, memory_mb=512)
        assert rep["found"] == [], f"secret(s) {rep['found']} of {needles} found in a child's memory"
        assert rep["sockets"] == [] and rep["gc_sockets"] == 0, rep
        assert rep["nfds"] <= 4, rep  # 0, 1, 2 and the listing's own
        # What a zygote frame exposes: no request, socket or config names.
        # What a zygote frame exposes: the few names its exit handling needs, nothing else.
        # What a zygote frame exposes: its exit handling, nothing of the server or a request.
        assert not {"req", "sock", "fds", "msg", "serve", "child", "isolate", "_socket", "ctypes", "resource",
                    "seccomp_cache", "own_stdio"} & set(rep["frame_globals"]), rep


def test_child_cannot_regain_privileges(backend):
    rep = _report(backend, '''
attempt("setuid0", lambda: os.setuid(0))
attempt("setresuid", lambda: os.setresuid(0, 0, 0))
attempt("setgid0", lambda: os.setgid(0))
attempt("setgroups", lambda: os.setgroups([0]))
st = dict(l.split(":", 1) for l in open("/proc/self/status") if ":" in l)
R["caps"] = [st[k].strip() for k in ("CapInh", "CapPrm", "CapEff", "CapAmb")]
R["nnp"] = st["NoNewPrivs"].strip()
R["seccomp"] = st.get("Seccomp", "").strip()
R["uid"] = st["Uid"].split()
attempt("unshare", lambda: os.unshare(os.CLONE_NEWUSER))
''')
    for name in ("setuid0", "setresuid", "setgid0", "setgroups", "unshare"):
        assert _failed(rep, name), rep
    assert rep["caps"] == ["0000000000000000"] * 4, rep
    assert rep["nnp"] == "1" and rep["seccomp"] in ("2", ""), rep
    assert len(set(rep["uid"])) == 1


def test_child_cannot_leave_its_cgroup(backend):
    forked_only(backend)
    rep = _report(backend, '''
R["cgroup"] = open("/proc/self/cgroup").read()
def escape():
    for line in R["cgroup"].splitlines():
        rel = line.split(":", 2)[2]
        ctrl = line.split(":", 2)[1]
        parent = os.path.dirname(rel.rstrip("/"))
        for base in ("/sys/fs/cgroup", "/sys/fs/cgroup/" + (ctrl.split(",")[0] or "unified")):
            for cand in (base + parent, base, base + rel):
                for f in ("cgroup.procs", "tasks"):
                    p = os.path.join(cand, f)
                    if os.path.exists(p):
                        with open(p, "w") as fh:
                            fh.write(str(os.getpid()))
                        return p
    raise FileNotFoundError("no cgroup files visible")
attempt("escape", escape)
R["after"] = open("/proc/self/cgroup").read()
''')
    assert _failed(rep, "escape"), rep
    assert rep["after"] == rep["cgroup"]
    acct = getattr(backend.backend, "accounting", "rlimit")
    if acct.startswith("cgroup"):
        assert "run-" in rep["cgroup"], f"a run must sit in its own run cgroup: {rep['cgroup']}"


def test_nothing_of_a_run_survives_it(backend):
    code = PRELUDE + '''
import time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        time.sleep(60)
    os._exit(0)
with open("planted.txt", "w") as f:
    f.write("x")
R["cwd"] = os.getcwd()
print(json.dumps(R))
'''
    r = backend.run_code("python", code, limits=quick_limits())
    assert r.status == Status.OK, r
    cwd = json.loads(r.stdout)["cwd"]
    assert_no_run_processes_left(backend)
    for _ in range(4):
        rep = _report(backend, f'''
attempt("old-box", lambda: os.listdir({cwd!r}))
attempt("old-file", lambda: open({cwd!r} + "/planted.txt").read())
R["scratch"] = sorted(os.path.join(os.path.dirname(os.getcwd()), e) for e in os.listdir(os.path.dirname(os.getcwd())))
R["me"] = os.getcwd()
''')
        assert _failed(rep, "old-box") and _failed(rep, "old-file"), rep
        assert cwd == rep["me"] or cwd not in rep["scratch"], rep  # (Lambda reuses names in a fresh root)
    assert_healthy(backend)


def test_a_child_leaves_no_state_for_the_next(backend):
    dirty = PRELUDE + '''
import builtins, io
builtins.LEAK = 1
builtins.len = lambda x: 0
sys.modules["planted"] = sys
sys.setrecursionlimit(77)
sys.path.insert(0, "/planted")
os.environ["LEAK"] = "1"
signal.signal(signal.SIGINT, signal.SIG_IGN)
below = sys._getframe().f_back
if below is not None:  # the zygote's frame in a fork-server child: change what it holds
    below.f_globals["PLANTED"] = 1
import random
random.seed(1)
print("{}")
'''
    probe = '''
import builtins, sys, os, signal, random, json
print(json.dumps([hasattr(builtins, "LEAK"), len("abc"), "planted" in sys.modules, sys.getrecursionlimit(),
                  "/planted" in sys.path, "LEAK" in os.environ, signal.getsignal(signal.SIGINT) is signal.default_int_handler,
                  random.random() == __import__("random").Random(1).random(),
                  sys._getframe().f_back is not None and "PLANTED" in sys._getframe().f_back.f_globals]))
'''
    for _ in range(4):
        r1 = backend.run_code("python", dirty)
        assert r1.status == Status.OK, r1
        r2 = backend.run_code("python", probe)
        assert r2.status == Status.OK, r2
        assert json.loads(r2.stdout) == [False, 3, False, 1000, False, False, True, False, False], r2.stdout


def test_two_runs_in_flight_cannot_see_each_other(backend):
    """Runs in parallel (other slots) cannot read each other's scratch or signal each other."""
    marker = secrets.token_hex(8)
    code = PRELUDE + f'''
import glob, time
open("mine-{marker}", "w").write("x")
time.sleep(0.3)
R["others"] = [p for p in glob.glob("/tmp/*/mine-{marker}") + glob.glob("/sandbox/*/mine-{marker}")
               if not p.startswith(os.getcwd())]
print(json.dumps(R))
'''
    res = backend.run(Batch(program=Source(language="python", code=code),
                            runs=[RunSpec(id=str(i), stdin=Blob(data=b""), limits=quick_limits()) for i in range(4)]))
    for r in res.runs:
        assert r.status == Status.OK, r
        assert json.loads(r.stdout)["others"] == [], r.stdout
