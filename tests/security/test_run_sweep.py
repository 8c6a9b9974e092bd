"""Attacks on the cheaper end-of-run sweep (every backend).

Where a run has its own cgroup, the agent no longer scans /proc for the run uid after it:
the group is killed until empty, and the IPC namespace is looked at again only when the
clear found something. Each test here tries to break one of the reasons that is sound:
a process that leaves the group or hides from it, one that forks while it is killed, and
a daemon that keeps making files and IPC objects after the main process has exited. The
oracles are independent of the agent: the host's /proc (marker on the command line, run
uids) and what a later run sees in its own namespace.
"""

from __future__ import annotations

import json
import secrets

from sandboxes.types import Batch, RunSpec, Source, Status
from tests.sandboxes.backend_fixture import quick_limits
from tests.security.helpers import assert_healthy, assert_no_run_processes_left, host_pids_with_cmdline

# Writes its pid into every cgroup.procs/tasks file it can find, then daemonises (setsid,
# new process group, non-dumpable so its /proc entry looks like root's) and sleeps.
_ESCAPE = r"""
import ctypes, json, os, sys, time
marker = sys.argv[1]
moved = []
roots = ['/sys/fs/cgroup', '/run/oubliette-cgroup']
for line in open('/proc/self/cgroup').read().splitlines():
    path = line.split(':', 2)[2]
    for r in ('/sys/fs/cgroup', '/run/oubliette-cgroup'):
        roots.append(r + path)
seen = set()
for root in roots:
    for dirpath, dirs, files in os.walk(root):
        for name in ('cgroup.procs', 'tasks'):
            if name in files:
                path = os.path.join(dirpath, name)
                if path in seen:
                    continue
                seen.add(path)
                try:
                    with open(path, 'w') as f:
                        f.write(str(os.getpid()))
                    moved.append(path)
                except OSError:
                    pass
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
        os.setpgid(0, 0)
        for fd in (0, 1, 2):
            os.close(fd)
        time.sleep(60)
        os._exit(0)
    os._exit(0)
os.wait()
print(json.dumps({'tried': len(seen), 'moved': moved}))
"""


def test_a_run_cannot_leave_its_cgroup_and_its_daemon_dies(backend):
    marker = "escape-" + secrets.token_hex(6)
    res = backend.run(Batch(program=Source(language="python", code=_ESCAPE),
                            runs=[RunSpec(id="a", args=[marker], limits=quick_limits())]))
    r = res.runs[0]
    assert r.status == Status.OK, r
    out = json.loads(r.stdout)
    assert out["moved"] == [], f"the run moved itself into another cgroup: {out['moved']}"
    assert host_pids_with_cmdline(marker.encode()) == [], "the daemon outlived its run"
    assert_no_run_processes_left(backend)
    assert_healthy(backend)


# A chain that never stops forking: each process forks and exits at once, so the chain's
# pid changes every few microseconds and any "list, then kill" pass sees a stale pid. The
# wall limit kills it mid-fork.
_CHAIN = r"""
import os, sys
marker = sys.argv[1]
print('start', flush=True)
while True:
    try:
        if os.fork():
            os._exit(0)
    except OSError:
        pass
"""


def test_a_forking_chain_killed_mid_fork_leaves_nothing(backend):
    marker = "chain-" + secrets.token_hex(6)
    res = backend.run(Batch(program=Source(language="python", code=_CHAIN),
                            runs=[RunSpec(id=str(i), args=[marker],
                                          limits=quick_limits(cpu_time_s=0.5, wall_time_s=1.0))
                                  for i in range(2)]))
    for r in res.runs:
        # The main process exits at its first fork: the run itself is OK, its chain is a
        # leftover the sweep must catch while it keeps forking.
        assert r.status in (Status.OK, Status.TLE), r
        assert r.stdout == b"start\n", r
    assert host_pids_with_cmdline(marker.encode()) == [], "the forking chain outlived its run"
    assert_no_run_processes_left(backend)
    assert_healthy(backend)


# The main process exits at once; a daemon keeps creating files (its box, TMPDIR, /dev/shm)
# and IPC objects (SysV shm/msg/sem, a POSIX queue) in a loop, racing the clean-up.
_LITTERER = r"""
import ctypes, os, sys, time
marker = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)
box = os.getcwd()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for fd in (0, 1, 2):
            os.close(fd)
        i = 0
        end = time.time() + 20
        while time.time() < end:
            i += 1
            for d in (box, os.environ.get('TMPDIR', box), '/dev/shm'):
                try:
                    with open(os.path.join(d, f'{marker}-{i}'), 'w') as f:
                        f.write(marker)
                except OSError:
                    pass
            libc.shmget(0x5157000 + i % 1000, 4096, 0o1000 | 0o666)
            libc.msgget(0x5158000 + i % 1000, 0o1000 | 0o666)
            libc.semget(0x5159000 + i % 1000, 1, 0o1000 | 0o666)
            libc.mq_open(f'/{marker}-{i % 100}'.encode(), 0o2 | 0o100, 0o666, None)
        os._exit(0)
    os._exit(0)
os.wait()
time.sleep(0.05)  # let the daemon get going before the run ends
print('littering')
"""

_LOOK = r"""
import json, os
out = {}
for kind in ('shm', 'msg', 'sem'):
    try:
        out[kind] = len(open('/proc/sysvipc/' + kind).read().splitlines()[1:])
    except OSError:
        out[kind] = 0
try:
    out['mqueue'] = sorted(os.listdir('/dev/mqueue'))
except OSError:
    out['mqueue'] = []
out['shm_files'] = sorted(os.listdir('/dev/shm'))
out['box'] = sorted(n for n in os.listdir('.') if n != 'main.py' and not n.startswith('__'))
print(json.dumps(out))
"""


def test_a_daemon_littering_after_the_run_leaves_no_files_or_ipc(backend):
    marker = "litter-" + secrets.token_hex(6)
    first = backend.run(Batch(program=Source(language="python", code=_LITTERER),
                              runs=[RunSpec(id=str(i), args=[marker], limits=quick_limits())
                                    for i in range(2 * min(backend.backend.capacity, 4))]))
    assert all(r.status == Status.OK and r.stdout == b"littering\n" for r in first.runs), first.runs
    assert host_pids_with_cmdline(marker.encode()) == [], "the littering daemon outlived its run"
    assert_no_run_processes_left(backend)
    later = backend.run(Batch(program=Source(language="python", code=_LOOK),
                              runs=[RunSpec(id=str(i), limits=quick_limits())
                                    for i in range(2 * min(backend.backend.capacity, 4))]))
    for r in later.runs:
        assert r.status == Status.OK, r
        seen = json.loads(r.stdout)
        assert seen == {"shm": 0, "msg": 0, "sem": 0, "mqueue": [], "shm_files": [], "box": []}, seen
    assert_healthy(backend)


# Puts a listening abstract unix socket (named after the marker), 8 MB of memfd and the two
# ends of a socketpair in flight on that socketpair: a cycle no process holds, which the
# kernel frees only when its unix-socket garbage collector runs (a hostile policy's way to
# leave a name for later runs to read, and memory that outlives its run).
_IN_FLIGHT = r"""
import os, socket, sys
name = b'\0' + sys.argv[1].encode()
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(name)
listener.listen(1)
mem = os.memfd_create('left')
os.write(mem, b'\1' * (8 << 20))
a, b = socket.socketpair()
socket.send_fds(a, [b'x'], [a.fileno(), b.fileno(), listener.fileno(), mem])
for s in (a, b, listener):
    s.detach()
print('in flight')
"""

_LOOK_UNIX = r"""
import sys
print(sum(sys.argv[1] in line for line in open('/proc/net/unix')))
"""


def test_sockets_left_in_flight_do_not_outlive_the_run(backend):
    marker = "inflight-" + secrets.token_hex(6)
    n = 2 * min(backend.backend.capacity, 4)
    first = backend.run(Batch(program=Source(language="python", code=_IN_FLIGHT),
                              runs=[RunSpec(id=str(i), args=[f"{marker}-{i}"], limits=quick_limits())
                                    for i in range(n)]))
    assert all(r.status == Status.OK and r.stdout == b"in flight\n" for r in first.runs), first.runs
    later = backend.run(Batch(program=Source(language="python", code=_LOOK_UNIX),
                              runs=[RunSpec(id=str(i), args=[marker], limits=quick_limits()) for i in range(n)]))
    for r in later.runs:
        assert r.status == Status.OK and r.stdout == b"0\n", f"a later run saw the sockets: {r}"
    assert_healthy(backend)
