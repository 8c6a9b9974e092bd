"""A run's daemon must not reach the next submission (every backend; the attack that
worked on Lambda in AWS mode, where runs share the function's uid and moto could not
show it), and runs cannot open network sockets (every backend).
"""

from __future__ import annotations

import json
import secrets

import pytest

from sandboxes.types import Batch, RunSpec, Source, Status
from tests.sandboxes.backend_fixture import quick_limits
from tests.security.helpers import assert_healthy, assert_no_run_processes_left, host_pids_with_cmdline

# A daemon (double fork + setsid, so it leaves the run's process group and session) that
# for 30 s watches every scratch area it can see with inotify (it reacts within
# microseconds, long before a freshly spawned interpreter or compiler opens its source) and
# rewrites any file holding the next submission's token.
_DAEMON = r"""
import os, sys
marker, token = sys.argv[1], {token!r}
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for fd in (0, 1, 2):
            os.close(fd)
        os.execv(sys.executable, [sys.executable, '-c', _WATCHER, marker, token])
    os._exit(0)
os.wait()
print('planted')
"""

_WATCHER = r"""
import ctypes, os, select, struct, sys, time
token = sys.argv[2].encode()
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(os.O_NONBLOCK)
IN_CLOSE_WRITE, IN_CREATE, IN_ISDIR = 0x8, 0x100, 0x40000000
me = os.path.realpath(os.getcwd())
watches = {}
def watch(d):
    if d == me or d.startswith(me + '/') or d in watches.values():
        return
    wd = libc.inotify_add_watch(fd, d.encode(), IN_CLOSE_WRITE | IN_CREATE)
    if wd >= 0:
        watches[wd] = d
        try:
            for e in os.scandir(d):
                if e.is_dir(follow_symlinks=False):
                    watch(e.path)
                else:
                    hit(e.path)
        except OSError:
            pass
def hit(path):
    try:
        with open(path, 'rb') as f:
            data = f.read(1 << 16)
        if token in data and b'hacked' not in data:
            with open(path, 'wb') as f:
                f.write(b'print("hacked")\n' if path.endswith('.py') else b'int main(void){return 0;}\n')
    except OSError:
        pass
for top in ('/tmp', '/sandbox', '/dev/shm', '/var/tmp'):
    watch(top)
end = time.time() + 30
while time.time() < end:
    select.select([fd], [], [], 0.05)
    try:
        buf = os.read(fd, 1 << 16)
    except BlockingIOError:
        continue
    i = 0
    while i < len(buf):
        wd, mask, _, n = struct.unpack_from('iIII', buf, i)
        name = buf[i + 16:i + 16 + n].rstrip(b'\0').decode(errors='replace')
        i += 16 + n
        path = os.path.join(watches.get(wd, '/'), name)
        if mask & IN_ISDIR:
            watch(path)
        else:
            hit(path)
"""


def test_a_daemon_cannot_read_or_rewrite_the_next_submission(backend):
    token = "genuine-" + secrets.token_hex(6)
    marker = "daemon-" + secrets.token_hex(6)
    n = 2 * min(backend.backend.capacity, 8)
    code = f"_WATCHER = {_WATCHER!r}\n" + _DAEMON.format(token=token)
    first = backend.run(Batch(program=Source(language="python", code=code),
                              runs=[RunSpec(id=str(i), args=[marker], limits=quick_limits(cpu_time_s=30))
                                    for i in range(n)]))
    assert [r.stdout for r in first.runs] == [b"planted\n"] * n, first.runs
    assert host_pids_with_cmdline(marker.encode()) == [], "the daemon outlived its run"
    assert_no_run_processes_left(backend)
    # The next submissions (source code and a compiled language) carry the token the daemon
    # hunts for; each must run exactly as written.
    py = f"print({token!r})\n"
    c = f'#include <stdio.h>\nint main(void){{ puts("{token}"); return 0; }}\n'
    for lang, code in (("python", py), ("c", c)):
        res = backend.run(Batch(program=Source(language=lang, code=code),
                                runs=[RunSpec(id=str(i), limits=quick_limits()) for i in range(n)]))
        assert res.compile.status == Status.OK, res.compile
        assert [(r.status, r.stdout) for r in res.runs] == [(Status.OK, (token + "\n").encode())] * n, res.runs
    assert_healthy(backend)


_SOCKETS = r"""
import json, socket
out = {}
for name, fam, typ in (('AF_INET', socket.AF_INET, socket.SOCK_STREAM), ('AF_INET6', socket.AF_INET6, socket.SOCK_DGRAM),
                       ('AF_PACKET', 17, socket.SOCK_RAW), ('AF_VSOCK', 40, socket.SOCK_STREAM),
                       ('AF_UNIX', socket.AF_UNIX, socket.SOCK_STREAM)):
    try:
        socket.socket(fam, typ).close()
        out[name] = 'ok'
    except OSError as e:
        out[name] = e.strerror
print(json.dumps(out))
"""


def test_runs_cannot_open_network_sockets(backend):
    """On every backend the seccomp rule refuses network socket families (Lambda: the
    function's network is not the run's; local/docker: TCP state outlives a run in the
    slot's network namespace, test_no_tcp_state_carries_an_answer_to_the_next_run);
    AF_UNIX stays."""
    r = backend.run_code("python", _SOCKETS)
    assert r.status == Status.OK, r
    out = json.loads(r.stdout)
    assert out.pop("AF_UNIX") == "ok"
    assert out == {k: "Permission denied" for k in ("AF_INET", "AF_INET6", "AF_PACKET", "AF_VSOCK")}
    assert_healthy(backend)
