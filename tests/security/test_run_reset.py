"""Nothing a run leaves in its IPC namespace reaches a later run (every backend).

A slot (local), a warm container (docker) or a warm Lambda execution environment keeps one
IPC namespace for many runs. These attacks fill every kind of IPC object a run can make
and look for them from later runs: SysV shared memory (detached, and marked for removal
while a daemon still holds it attached), message queues, semaphores, POSIX message queues
and POSIX shared memory (/dev/shm). The oracle is the kernel's own list
(/proc/sysvipc/*) plus direct lookups by key/name, read by the later run.
"""

from __future__ import annotations

import json
import secrets

from sandboxes.types import Batch, RunLimits, RunSpec, Source, Status
from tests.sandboxes.backend_fixture import quick_limits
from tests.security.helpers import assert_healthy, assert_no_run_processes_left

# ctypes wrappers shared by the writer and the reader (glibc: librt's mq_* live in libc).
_IPC_PRELUDE = r"""
import ctypes, json, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
IPC_CREAT, IPC_EXCL, IPC_RMID, IPC_NOWAIT = 0o1000, 0o2000, 0, 0o4000
O_RDWR, O_CREAT = 0o2, 0o100
def sysv():
    out = {}
    for kind in ('shm', 'msg', 'sem'):
        try:
            out[kind] = open('/proc/sysvipc/' + kind).read().splitlines()[1:]
        except OSError as e:
            out[kind] = ['unreadable: %s' % e]
    return out
def mqueues():
    try:
        return sorted(os.listdir('/dev/mqueue'))
    except OSError:
        return []
"""


def _writer(key: int, marker: str) -> str:
    return _IPC_PRELUDE + f"""
made = {{}}
marker = {marker!r}.encode()
shm = libc.shmget({key}, 1 << 20, IPC_CREAT | 0o666)
if shm >= 0:
    p = libc.shmat(shm, None, 0)
    ctypes.memmove(p, marker, len(marker))
    libc.shmdt(ctypes.c_void_p(p))
    made['shm'] = shm
# A segment marked for removal but still attached by a daemon that left our session.
held = libc.shmget({key + 1}, 1 << 20, IPC_CREAT | 0o666)
if held >= 0 and os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        p = libc.shmat(held, None, 0)
        ctypes.memmove(p, marker, len(marker))
        libc.shmctl(held, IPC_RMID, None)
        for fd in (0, 1, 2):
            os.close(fd)
        time.sleep(300)
    os._exit(0)
msg = libc.msgget({key + 2}, IPC_CREAT | 0o666)
if msg >= 0:
    buf = ctypes.create_string_buffer(ctypes.sizeof(ctypes.c_long) + len(marker))
    ctypes.memmove(ctypes.addressof(buf), ctypes.byref(ctypes.c_long(1)), ctypes.sizeof(ctypes.c_long))
    ctypes.memmove(ctypes.addressof(buf) + ctypes.sizeof(ctypes.c_long), marker, len(marker))
    made['msgsnd'] = libc.msgsnd(msg, buf, len(marker), IPC_NOWAIT)
    made['msg'] = msg
sem = libc.semget({key + 3}, 1, IPC_CREAT | 0o666)
if sem >= 0:
    made['sem'] = sem
class MqAttr(ctypes.Structure):
    _fields_ = [('flags', ctypes.c_long), ('maxmsg', ctypes.c_long), ('msgsize', ctypes.c_long),
                ('curmsgs', ctypes.c_long), ('pad', ctypes.c_long * 4)]
attr = MqAttr(0, 1, 64, 0)
mq = libc.mq_open(b'/' + marker, O_RDWR | O_CREAT, 0o666, ctypes.byref(attr))
made['mq'] = mq if mq >= 0 else 'refused: ' + os.strerror(ctypes.get_errno())
try:
    open('/dev/shm/' + marker.decode(), 'wb').write(marker)
    made['posix_shm'] = True
except OSError as e:
    made['posix_shm'] = 'refused: ' + e.strerror
os.wait()
made['seen'] = sysv()
print(json.dumps(made))
"""


def _reader(key: int, marker: str) -> str:
    return _IPC_PRELUDE + f"""
marker = {marker!r}
found = {{k: v for k, v in sysv().items() if v}}
for off, get in ((0, lambda k: libc.shmget(k, 0, 0)), (1, lambda k: libc.shmget(k, 0, 0)),
                 (2, lambda k: libc.msgget(k, 0)), (3, lambda k: libc.semget(k, 0, 0))):
    if get({key} + off) >= 0:
        found['key+%d' % off] = True
if libc.mq_open(('/' + marker).encode(), O_RDWR) >= 0:
    found['mq_open'] = True
if mqueues():
    found['mqueue'] = mqueues()
try:
    found['dev_shm'] = sorted(os.listdir('/dev/shm'))
    if not found['dev_shm']:
        del found['dev_shm']
except OSError:
    pass
print(json.dumps(found))
"""


def test_ipc_objects_do_not_survive_into_later_runs(backend):
    key = 0x0B000000 + secrets.randbelow(1 << 20) * 4
    marker = "ipc" + secrets.token_hex(6)
    n = 2 * min(backend.backend.capacity, 8)  # every slot / container serves a writer
    lim = quick_limits(wall_time_s=10, cpu_time_s=4)
    w = backend.run(Batch(program=Source(language="python", code=_writer(key, marker)),
                          runs=[RunSpec(id=str(i), limits=lim) for i in range(n)]))
    made = [json.loads(r.stdout) for r in w.runs if r.status == Status.OK]
    assert len(made) == n, w.runs
    # The attack really happened: the writer saw its own segments, queue and semaphore.
    assert all({"shm", "msg", "sem"} <= set(m) for m in made), made
    assert all(m["seen"]["shm"] and m["seen"]["msg"] and m["seen"]["sem"] for m in made), made
    r = backend.run(Batch(program=Source(language="python", code=_reader(key, marker)),
                          runs=[RunSpec(id=str(i), limits=lim) for i in range(n)]))
    assert [x.status for x in r.runs] == [Status.OK] * n, r.runs
    assert [json.loads(x.stdout) for x in r.runs] == [{}] * n
    assert_no_run_processes_left(backend)
    assert_healthy(backend)


_LEAK = r"""
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
total = 0
for i in range({chunks}):
    ident = libc.shmget(0, 64 << 20, 0o1000 | 0o600)  # IPC_PRIVATE, IPC_CREAT
    if ident < 0:
        break
    p = libc.shmat(ident, None, 0)
    if p in (None, ctypes.c_void_p(-1).value):
        break
    ctypes.memset(p, 1, 64 << 20)  # touched: the pages are really allocated (shmem)
    libc.shmdt(ctypes.c_void_p(p))  # detached, never removed
    total += 64
print(total)
"""

_USE_150MB = "b = bytearray(150 << 20)\nfor i in range(0, len(b), 4096):\n    b[i] = 1\nprint('ok')\n"


def test_a_leaked_896_mib_of_shm_does_not_make_later_runs_mle(backend):
    n = min(backend.backend.capacity, 4)
    lim = RunLimits(cpu_time_s=10, wall_time_s=30, memory_mb=256)
    # Where a run's group is charged for the shm pages it touches (cgroup accounting), the
    # leaking run needs room for them itself; the point here is what the *next* runs see.
    leak_lim = RunLimits(cpu_time_s=10, wall_time_s=30, memory_mb=1024)
    leak = backend.run(Batch(program=Source(language="python", code=_LEAK.format(chunks=14)),
                             runs=[RunSpec(id=str(i), limits=leak_lim) for i in range(n)]))
    assert all(r.status == Status.OK for r in leak.runs), leak.runs
    assert all(int(r.stdout) == 896 for r in leak.runs), [r.stdout for r in leak.runs]
    ok = backend.run(Batch(program=Source(language="python", code=_USE_150MB),
                           runs=[RunSpec(id=str(i), limits=lim) for i in range(2 * n)]))
    assert [(r.status, r.stdout) for r in ok.runs] == [(Status.OK, b"ok\n")] * (2 * n), ok.runs
    assert_healthy(backend)


# Red-team finding: files unlinked while their descriptors sit in a unix socket that is itself
# in flight (an SCM_RIGHTS cycle) outlive every process of the run; the kernel frees them at
# its next unix garbage collection, seconds later. Until then the slot's scratch tmpfs and
# /dev/shm stayed full: a correct program's compile failed (CE "No space left on device",
# cached) and the free space carried bits of a hidden input to the next request.
_PARK = r"""
import os, socket
s0, s1 = socket.socketpair()
held = 0
for where, mb in ((".", 48), ("/dev/shm", 8)):  # up to these sizes, or until the mount is full
    fd = os.open(where + "/parked", os.O_CREAT | os.O_RDWR, 0o600)
    try:
        for _ in range(mb):
            os.write(fd, b"p" * (1 << 20))
            held += 1
    except OSError:
        pass
    os.unlink(where + "/parked")
    socket.send_fds(s0, [b"x"], [fd])
    os.close(fd)
socket.send_fds(s0, [b"x"], [s0.fileno()])
socket.send_fds(s1, [b"x"], [s1.fileno()])
s0.close()
s1.close()
print(held)
"""

_FREE = r"""
import os
def free(p):
    st = os.statvfs(p)
    return st.f_bavail * st.f_frsize >> 20
print(free("."), free("/dev/shm"))
"""


def test_space_held_by_files_in_flight_does_not_reach_later_runs(backend):
    n = 2 * min(backend.backend.capacity, 4)  # every slot / container serves the attack
    lim = quick_limits(wall_time_s=10, cpu_time_s=4)

    def free_space():
        r = backend.run(Batch(program=Source(language="python", code=_FREE),
                              runs=[RunSpec(id=str(i), limits=lim) for i in range(n)]))
        assert [x.status for x in r.runs] == [Status.OK] * n, r.runs
        return [tuple(map(int, x.stdout.split())) for x in r.runs]

    before = free_space()
    park = backend.run(Batch(program=Source(language="python", code=_PARK),
                             runs=[RunSpec(id=str(i), limits=RunLimits(
                                 cpu_time_s=10, wall_time_s=30, memory_mb=1024)) for i in range(n)]))
    assert all(r.status == Status.OK for r in park.runs), park.runs
    assert all(int(r.stdout) >= 8 for r in park.runs), [r.stdout for r in park.runs]  # it held space
    after = free_space()
    # every later run sees as much free space as a run before the attack did (within 1 MiB)
    worst_box = min(b for b, _ in before)
    worst_shm = min(s for _, s in before)
    assert all(b >= worst_box - 1 and s >= worst_shm - 1 for b, s in after), (before, after)
    assert_healthy(backend)
