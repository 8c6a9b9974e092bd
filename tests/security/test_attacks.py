"""One adversarial test per claim of sandboxes/THREAT_MODEL.md, on every backend.

Each test really attempts the attack from inside a sandboxed run, checks it failed (or
was contained by a limit), then checks the backend still judges a normal submission
correctly. Network checks only ever target loopback servers the test started itself.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import socket
import subprocess
import sys
import threading

import pytest

from sandboxes.types import Batch, Blob, RunSpec, Source, Status
from tests.sandboxes.backend_fixture import HOST_SECRET, quick_limits
from tests.security.helpers import (assert_healthy, skip_if_not_covered, assert_no_run_processes_left,
                                    host_pids_with_cmdline)


def _hidden(secret: bytes) -> str:
    """A Python expression rebuilding ``secret`` at run time, so the program's own source
    (which a backend may hold in a file or a command line) does not contain it."""
    return f"bytes.fromhex({secret[::-1].hex()!r})[::-1]"


def _json_out(r) -> dict:
    assert r.status == Status.OK, r
    return json.loads(r.stdout)


# -- resource exhaustion ----------------------------------------------------------------------

def test_fork_bomb_is_contained(backend):
    code = "#include <unistd.h>\nint main(void){ for(;;) fork(); }\n"
    r = backend.run_code("c", code, limits=quick_limits(max_processes=16, cpu_time_s=1, wall_time_s=2))
    assert r.status in (Status.TLE, Status.RE), r
    assert_no_run_processes_left(backend)
    assert_healthy(backend)


def test_thread_bomb_is_contained(backend):
    code = ("import threading, time\nn = 0\ntry:\n    while n < 10000:\n"
            "        threading.Thread(target=time.sleep, args=(30,), daemon=True).start(); n += 1\n"
            "except (RuntimeError, MemoryError):\n    pass\nprint(n, flush=True)\nimport os\nos._exit(0)\n")
    r = backend.run_code("python", code, limits=quick_limits(max_processes=24, wall_time_s=5))
    assert r.status == Status.OK, r
    assert int(r.stdout) < 24, "threads are capped by the process/thread limit"
    assert_no_run_processes_left(backend)
    assert_healthy(backend)


def test_memory_bomb_is_mle(backend):
    code = "chunks = []\nwhile True:\n    chunks.append(bytearray(8 << 20))\n"
    r = backend.run_code("python", code, limits=quick_limits(memory_mb=128))
    assert r.status == Status.MLE, r
    assert_healthy(backend)


def test_native_memory_bomb_is_mle(backend):
    code = ("#include <stdlib.h>\n#include <string.h>\nint main(void){ for(;;){ char *p = malloc(1<<24);"
            " if(!p) return 3; memset(p, 1, 1<<24);} }\n")
    r = backend.run_code("c", code, limits=quick_limits(memory_mb=128))
    assert r.status in (Status.MLE, Status.RE), r  # malloc NULL -> exit 3 is the program's choice
    assert r.memory_kb <= 128 * 1024 + 1024
    assert_healthy(backend)


def test_cpu_spin_is_tle(backend):
    r = backend.run_code("python", "while True:\n    pass\n", limits=quick_limits(cpu_time_s=0.5, wall_time_s=5))
    assert r.status == Status.TLE and "CPU" in r.message, r
    assert_healthy(backend)


def test_sleep_past_wall_limit_is_tle(backend):
    r = backend.run_code("python", "import time\ntime.sleep(60)\n", limits=quick_limits(cpu_time_s=1, wall_time_s=1))
    assert r.status == Status.TLE and "wall" in r.message, r
    assert r.wall_time_s < 10
    assert_healthy(backend)


IDLE_PROGRAMS = {
    "python-sleep": ("python", "import time\ntime.sleep(60)\n"),
    "python-naps": ("python", "import time\nwhile True:\n    time.sleep(0.02)\n"),  # wakes up: a little CPU
    "c-sleep": ("c", "#include <unistd.h>\nint main(void) { sleep(60); return 0; }\n"),
    "python-blocked-on-a-pipe": ("python", "import os\nr, w = os.pipe()\nos.read(r, 1)\n"),
    # A review of the rule that waiting for a core is not idleness: 60 threads (processes)
    # sleep to the same instant twice a second, wake together and queue behind each other on
    # the slot's idle core: their summed run-queue wait grows ~N^2/2 times their CPU. That
    # held a slot to its wall limit with 14 ms of CPU, and a main that slept 2.5 s and then
    # answered was OK. The core was free all along: idle.
    "cpp-thread-herd": ("cpp", r"""
#include <pthread.h>
#include <time.h>
#include <unistd.h>
static void* herd(void*) {
    for (;;) {
        timespec now; clock_gettime(CLOCK_MONOTONIC, &now);
        long long ns = now.tv_sec * 1000000000LL + now.tv_nsec;
        ns = (ns / 500000000LL + 1) * 500000000LL;
        timespec t{(time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, nullptr);
        volatile int x = 0; for (int i = 0; i < 2000; i++) x += i;
    }
    return nullptr;
}
int main() {
    for (int i = 0; i < 60; i++) { pthread_t th; pthread_create(&th, nullptr, herd, nullptr); }
    sleep(60); write(1, "3\n", 2); return 0;
}
"""),
    "python-process-herd": ("python", "import os, time\nfor i in range(60):\n    if os.fork() == 0:\n"
                            "        while True:\n            time.sleep(0.5 - time.time() % 0.5)\n"
                            "time.sleep(60)\nprint(3)\n"),
}


@pytest.mark.parametrize("name", sorted(IDLE_PROGRAMS))
def test_a_sleeping_run_is_stopped_at_the_idleness_limit_not_the_wall_limit(backend, name):
    """Hostile review 6: sleeping tests held every sandbox slot for their wall limit (15 s
    each) while another client's 0.06 s answer waited. A run whose CPU time grows by less
    than 1 % of the clock for its CPU limit (at least 1 s) is TLE ("idleness limit") then;
    the wall limit (30 s here) is never reached."""
    lang, code = IDLE_PROGRAMS[name]
    r = backend.run_code(lang, code, limits=quick_limits(cpu_time_s=1, wall_time_s=30))
    assert r.status == Status.TLE and "idleness limit" in r.message, r
    assert r.wall_time_s < 30, r
    assert_healthy(backend)


def test_a_runs_dead_children_do_not_count_against_the_next_run(backend):
    """A run whose 60 children outlive it: the clean-up kills them, and their zombies must be
    reaped too. Where runs share one uid (a non-root Lambda environment), zombies count
    against RLIMIT_NPROC: the next submission could not fork (a C compile became CE, a
    program that forks RE) before the final reap."""
    leave = ("import os, time\nfor i in range(60):\n    if os.fork() == 0:\n        time.sleep(60)\n"
             "        os._exit(0)\nprint('left')\n")
    r = backend.run_code("python", leave)
    assert r.status == Status.OK and r.stdout == b"left\n", r
    fork = ("import os\nkids = []\nfor i in range(60):\n    pid = os.fork()\n    if pid == 0:\n"
            "        os._exit(0)\n    kids.append(pid)\nfor k in kids:\n    os.waitpid(k, 0)\nprint(len(kids))\n")
    r = backend.run_code("python", fork)
    assert r.status == Status.OK and r.stdout == b"60\n", r
    r = backend.run_code("c", "#include <stdio.h>\nint main(void) { puts(\"ok\"); return 0; }\n")
    assert r.status == Status.OK and r.stdout == b"ok\n", r
    assert_healthy(backend)


def test_a_short_pause_is_not_idleness(backend):
    """The control: a program that pauses for less than the idleness limit and then answers
    is judged on its answer."""
    r = backend.run_code("python", "import time\ntime.sleep(0.3)\nprint(42)\n",
                         limits=quick_limits(cpu_time_s=1, wall_time_s=30))
    assert r.status == Status.OK and r.stdout == b"42\n", r


STOP_SELF = {
    "python": "import os, signal\nos.kill(os.getpid(), signal.SIGSTOP)\n",
    "c": "#include <signal.h>\n#include <unistd.h>\nint main(void) { kill(getpid(), SIGSTOP); return 0; }\n",
}


@pytest.mark.parametrize("lang", sorted(STOP_SELF))
def test_stopped_program_is_tle_before_the_wall_limit(backend, lang):
    # A stopped process never ends and its CPU time stands still: the runner ends the run
    # once its main process has been stopped for half a second, not at the wall limit.
    r = backend.run_code(lang, STOP_SELF[lang], limits=quick_limits(cpu_time_s=1, wall_time_s=30))
    assert r.status == Status.TLE and "stopped" in r.message, r
    assert_healthy(backend)


def test_infinite_output_is_ole_at_the_cap(backend):
    code = "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n"
    r = backend.run_code("python", code, limits=quick_limits(output_bytes=1 << 20))
    assert r.status == Status.OLE
    assert len(r.stdout) == r.output_bytes == 1 << 20
    assert_healthy(backend)


def test_filling_the_disk_is_stopped(backend):
    skip_if_not_covered(backend, "scratch_size")
    # Many files, each under the file-size cap: only the scratch filesystem's size stops it.
    code = ("import os, errno\ntotal = 0\nerr = ''\ntry:\n    for i in range(4096):\n"
            "        with open(f'f{i}', 'wb') as f:\n            f.write(b'z' * (1 << 20))\n        total += 1 << 20\n"
            "except OSError as e:\n    err = errno.errorcode.get(e.errno, str(e.errno))\nprint(total, err or 'no-error')\n")
    # Files in the scratch tmpfs are memory the run's cgroup is charged for: the memory limit
    # is set above the scratch size here so that the filesystem's cap is what stops it.
    r = backend.run_code("python", code, limits=quick_limits(file_size_bytes=2 << 20, wall_time_s=20,
                                                             cpu_time_s=10, memory_mb=768))
    assert r.status == Status.OK, r
    total, err = r.stdout.split()
    assert err in (b"ENOSPC", b"EDQUOT", b"EFBIG"), f"wrote {int(total) >> 20} MiB without hitting a cap: {err!r}"
    assert int(total) < (4 << 30)
    assert_healthy(backend)
    # ...and the space is given back: the next run can write again.
    r2 = backend.run_code("python", "open('x','wb').write(b'y' * (1 << 20))\nprint('ok')\n")
    assert r2.stdout == b"ok\n", r2


@pytest.mark.parametrize("where", [".", "/dev/shm"])
def test_millions_of_empty_files_are_stopped(backend, where):
    """Empty files cost a tmpfs no space, only inodes: a run that left millions made the next
    run on its slot wait seconds for the reset to remove them (code review 4: 9.9 s). The
    scratch tmpfs holds at most SCRATCH_INODES files, /dev/shm at most SHM_INODES."""
    from sandboxes.runner.limits import SCRATCH_INODES

    skip_if_not_covered(backend, "scratch_files")
    code = (f"import os, errno\nos.chdir({where!r})\nn, err = 0, 'no-error'\ntry:\n"
            "    for i in range(200000):\n"
            "        os.close(os.open(f'e{os.getpid()}-{i}', os.O_CREAT | os.O_WRONLY, 0o600))\n"
            "        n += 1\nexcept OSError as e:\n    err = errno.errorcode.get(e.errno, str(e.errno))\n"
            "print(n, err)\n")
    r = backend.run_code("python", code, limits=quick_limits(wall_time_s=40, cpu_time_s=20, memory_mb=512))
    assert r.status == Status.OK, r
    made, err = r.stdout.split()
    assert err == b"ENOSPC" and int(made) <= SCRATCH_INODES, r.stdout
    assert_healthy(backend)
    r2 = backend.run_code("python", f"import os\nos.chdir({where!r})\nfor i in range(1000):\n"
                          "    open(f'g{i}', 'w').close()\nprint('ok')\n")
    assert r2.stdout == b"ok\n", r2  # the files went with the reset: the next run has room


@pytest.mark.parametrize("device", ["/dev/ptmx", "/dev/stdin"])
def test_a_compile_that_waits_on_a_device_is_stopped_as_ce(backend, device):
    """Code review 5: `#include "/dev/ptmx"` made the compiler wait, using no CPU, until the
    40 s compile wall limit while it held a slot (another client's 0.06 s answer took 38.6 s).
    A compile whose CPU time stops growing for COMPILE_IDLE_S is stopped: CE, and the slot is
    free again. (/dev/stdin of a compile is /dev/null: nothing to wait on, but checked.)"""
    from sandboxes.runner.core import COMPILE_IDLE_S

    res = backend.run(Batch(program=Source(language="cpp", code=f'#include "{device}"\nint main(){{}}\n'),
                            runs=[RunSpec(id="t")]))
    assert res.compile is not None, res
    if device == "/dev/ptmx":
        assert res.compile.status == Status.CE and "no progress" in res.compile.log, res.compile
        assert res.compile.wall_time_s < 40, res.compile  # the compile wall limit was not reached
        assert res.compile.wall_time_s >= COMPILE_IDLE_S, res.compile
    else:
        assert res.compile.status in (Status.OK, Status.CE), res.compile
    assert res.runs[0].status in (Status.OK, Status.CE) or res.runs[0].skipped, res.runs
    assert_healthy(backend)


def test_single_big_file_hits_file_size_limit(backend):
    code = "f = open('big', 'wb')\nwhile True:\n    f.write(b'x' * (1 << 20))\n"
    r = backend.run_code("python", code, limits=quick_limits(file_size_bytes=4 << 20))
    # C programs die of SIGXFSZ; CPython ignores that signal and gets EFBIG instead.
    assert r.status == Status.RE and ("SIGXFSZ" in r.message or b"File too large" in r.stderr), r
    c = backend.run_code("c", '#include <stdio.h>\nint main(void){ FILE *f = fopen("big", "wb"); static char b[1<<20];'
                         ' for(;;) fwrite(b, 1, sizeof b, f); }\n', limits=quick_limits(file_size_bytes=4 << 20))
    assert c.status == Status.RE and "SIGXFSZ" in c.message, c
    assert_healthy(backend)


# -- secrets and the host filesystem ----------------------------------------------------------

def test_host_env_and_shadow_are_not_readable(backend):
    code = ("import os, json\nout = {'env': dict(os.environ)}\n"
            "out['self_environ'] = open('/proc/self/environ','rb').read().decode(errors='replace')\n"
            "try:\n    out['shadow'] = open('/etc/shadow').read()\nexcept OSError as e:\n    out['shadow'] = None\n"
            "print(json.dumps(out))\n")
    out = _json_out(backend.run_code("python", code))
    assert HOST_SECRET not in json.dumps(out)
    assert "OUBLIETTE_TEST_HOST_SECRET" not in out["env"]
    assert out["shadow"] is None
    assert set(out["env"]) <= {"PATH", "LANG", "LC_ALL", "HOME", "TMPDIR", "PYTHONDONTWRITEBYTECODE",
                               "PYTHONIOENCODING", "LD_LIBRARY_PATH"}
    assert_healthy(backend)


def test_store_files_are_not_readable(backend):
    secret = ("store-secret-" + secrets.token_hex(8)).encode()
    link, _ = backend.store.put(secret)
    path = str(backend.store.local_path(link))
    code = f"""
import os, json
secret = {_hidden(secret)}
found, opened = [], False
try:
    opened = secret in open({path!r}, 'rb').read()
except OSError:
    pass
for top in ('/tmp', '/var', '/srv', '/mnt', '/opt', '/run', '/home', '/root', '/data', '/store', os.path.dirname({path!r})):
    for root, dirs, files in os.walk(top):
        for name in files:
            try:
                with open(os.path.join(root, name), 'rb') as f:
                    if secret in f.read(1 << 20):
                        found.append(os.path.join(root, name))
            except OSError:
                pass
print(json.dumps({{'opened': opened, 'found': found}}))
"""
    out = _json_out(backend.run_code("python", code, limits=quick_limits(wall_time_s=10, cpu_time_s=5)))
    assert out == {"opened": False, "found": []}
    # The same blob given to a run as its stdin by link is of course readable there, but
    # the run can neither write it through its fd nor reopen it for writing.
    tamper = ("import os, sys\ndata = sys.stdin.buffer.read()\nres = []\n"
              "try:\n    os.write(0, b'tampered'); res.append('write fd0')\nexcept OSError:\n    pass\n"
              "try:\n    open('/proc/self/fd/0', 'r+b').write(b'tampered'); res.append('reopen')\nexcept OSError:\n    pass\n"
              "sys.stdout.buffer.write(data + repr(res).encode())\n")
    r = backend.run(Batch(program=Source(language="python", code=tamper), runs=[RunSpec(id="a", stdin=Blob(link=link))]))
    assert r.runs[0].stdout == secret + b"[]"
    assert backend.store.get(link) == secret
    assert_healthy(backend)


def test_cannot_write_outside_scratch(backend, tmp_path):
    skip_if_not_covered(backend, "write_outside_scratch")
    host_target = tmp_path / "planted"
    targets = ["/usr/planted", "/etc/planted", "/planted", "/tmp/planted", "/var/planted", "/opt/planted",
               "/root/planted", "/home/planted", "/proc/sys/kernel/hostname", str(host_target)]
    code = f"""
import json
ok = []
for t in {targets!r}:
    try:
        with open(t, 'w') as f:
            f.write('x')
        ok.append(t)
    except OSError:
        pass
open('inside', 'w').write('fine')
print(json.dumps(ok))
"""
    out = _json_out(backend.run_code("python", code))
    assert out == []
    assert not host_target.exists()
    assert not os.path.exists("/usr/planted") and not os.path.exists("/etc/planted")
    assert_healthy(backend)


# -- network ------------------------------------------------------------------------------------

def test_only_loopback_and_no_route_to_a_host_server(backend):
    skip_if_not_covered(backend, "network")
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.2)
    port = srv.getsockname()[1]
    accepted = []

    def accept_loop():
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
                accepted.append(conn)
            except OSError:
                pass

    stop = threading.Event()
    t = threading.Thread(target=accept_loop, daemon=True)
    t.start()
    code = f"""
import json, socket
ifaces = [n for _, n in socket.if_nameindex()]
try:
    s = socket.create_connection(('127.0.0.1', {port}), timeout=2)
    s.sendall(b'escaped')
    reached = True
except OSError as e:
    reached = False
print(json.dumps({{'ifaces': ifaces, 'reached': reached}}))
"""
    try:
        out = _json_out(backend.run_code("python", code, limits=quick_limits(wall_time_s=8)))
    finally:
        stop.set()
        t.join(2)
        srv.close()
    assert out["ifaces"] == ["lo"]
    assert out["reached"] is False and accepted == []
    assert_healthy(backend)


# -- other processes ------------------------------------------------------------------------------

@pytest.fixture
def host_process():
    """A host process with a secret marker in its command line and the service's env."""
    marker = f"host-marker-{secrets.token_hex(6)}"
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", marker])
    try:
        yield p, marker
    finally:
        p.kill()
        p.wait()


def test_cannot_signal_or_ptrace_other_processes(backend, host_process):
    skip_if_not_covered(backend, "signals")
    proc, _ = host_process
    code = f"""
import ctypes, json, os, signal
libc = ctypes.CDLL(None, use_errno=True)
res = {{}}
targets = [{proc.pid}, 1, 2, 3, os.getppid()]
for pid in targets:
    if pid == os.getpid():
        continue
    try:
        os.kill(pid, signal.SIGKILL)
        res[f'kill {{pid}}'] = 'sent'
    except OSError as e:
        res[f'kill {{pid}}'] = e.strerror
    rc = libc.ptrace(16, pid, None, None)  # PTRACE_ATTACH
    res[f'ptrace {{pid}}'] = 'attached' if rc == 0 else os.strerror(ctypes.get_errno())
try:
    os.kill(-1, signal.SIGKILL)  # everything this uid may signal (not ourselves)
except OSError:
    pass
print(json.dumps(res))
"""
    out = _json_out(backend.run_code("python", code))
    assert "attached" not in out.values(), out
    assert proc.poll() is None, "the host process must survive"
    # Signals may reach only the run's own processes, never the agent or the host.
    for key, val in out.items():
        if key.startswith("kill") and val == "sent":
            pytest.fail(f"{key} was delivered: {out}")
    assert_healthy(backend)


def test_cannot_read_other_processes_through_proc(backend, host_process):
    proc, marker = host_process
    code = f"""
import json, os
hits = []
for pid in os.listdir('/proc'):
    if not pid.isdigit() or int(pid) == os.getpid():
        continue
    for what in ('environ', 'cmdline'):
        try:
            data = open(f'/proc/{{pid}}/{{what}}', 'rb').read()
        except OSError:
            continue
        if {_hidden(HOST_SECRET.encode())} in data or {_hidden(marker.encode())} in data:
            hits.append(f'{{pid}}/{{what}}')
print(json.dumps({{'hits': hits, 'host_pid_visible': os.path.exists('/proc/{proc.pid}/cmdline')}}))
"""
    out = _json_out(backend.run_code("python", code))
    assert out["hits"] == []
    assert_healthy(backend)


# -- privilege -----------------------------------------------------------------------------------

def test_setuid_tricks_gain_nothing(backend):
    code = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
int main(int argc, char **argv) {
    if (argc > 1) { printf("child euid=%d ruid=%d\n", (int)geteuid(), (int)getuid()); return 0; }
    printf("setuid0=%d setgid0=%d\n", setuid(0), setgid(0));
    FILE *f = fopen("/proc/self/status", "r"); char line[256];
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "Cap", 3) || !strncmp(line, "NoNewPrivs", 10)) fputs(line, stdout);
    fclose(f);
    /* our own copy with the setuid/setgid bits: must not change who we are */
    fflush(stdout);
    char cmd[4096]; snprintf(cmd, sizeof cmd, "cp %s ./suid && chmod 6755 ./suid", argv[0]);
    if (system(cmd) == 0) execl("./suid", "./suid", "again", (char *)0);
    printf("copy failed\n");
    return 0;
}
"""
    r = backend.run_code("c", code)
    assert r.status == Status.OK, r
    out = r.stdout.decode()
    assert "setuid0=-1 setgid0=-1" in out
    assert "NoNewPrivs:\t1" in out
    for cap in ("CapInh", "CapPrm", "CapEff", "CapAmb"):
        assert f"{cap}:\t0000000000000000" in out, out
    euid = int(out.split("child euid=")[1].split()[0])
    ruid = int(out.split("ruid=")[1].split()[0])
    assert euid == ruid != 0
    # A host setuid-root binary does not elevate either (no_new_privs / nosuid).
    r = backend.run_code("python", "import subprocess\np = subprocess.run(['/usr/bin/su', '-c', 'id -u', 'root'],"
                         " stdin=subprocess.DEVNULL, capture_output=True)\nprint(p.stdout.decode().strip() or 'none')\n")
    assert r.stdout.strip() != b"0", r
    assert_healthy(backend)


def test_planted_symlinks_are_never_followed_by_the_host(backend, tmp_path):
    canary = tmp_path / "canary"
    canary.write_text("untouched")
    os.chmod(canary, 0o600)
    before = (canary.read_bytes(), canary.stat().st_mode, canary.stat().st_uid)
    passwd_before = hashlib.sha256(open("/etc/passwd", "rb").read()).hexdigest()
    passwd_stat = os.stat("/etc/passwd")
    code = f"""
import os, glob
targets = [{str(canary)!r}, '/etc/passwd', '/etc/shadow', '/']
names = ['main', 'main.py', 'stdout', 'stderr', 'output', 'output.txt', 'a.out', 'input', 'box', 'art']
for i, name in enumerate(names):
    try:
        if os.path.lexists(name):
            os.unlink(name)
        os.symlink(targets[i % len(targets)], name)
    except OSError:
        pass
here = os.getcwd()
parent = os.path.dirname(here)
for guess in [here + '-next', parent + '/box-next'] + [here[:-1] + str(d) for d in range(10)]:
    try:
        os.symlink('/etc', guess)
    except OSError:
        pass
print('planted')
"""
    res = backend.run(Batch(program=Source(language="python", code=code),
                            runs=[RunSpec(id=str(i)) for i in range(4)], output_to_store=True))
    assert all(r.status == Status.OK for r in res.runs), res.runs
    assert (canary.read_bytes(), canary.stat().st_mode, canary.stat().st_uid) == before
    assert hashlib.sha256(open("/etc/passwd", "rb").read()).hexdigest() == passwd_before
    st = os.stat("/etc/passwd")
    assert (st.st_uid, st.st_gid, st.st_mode) == (passwd_stat.st_uid, passwd_stat.st_gid, passwd_stat.st_mode)
    assert_healthy(backend)


# -- isolation between runs ------------------------------------------------------------------------

def test_no_state_survives_from_one_run_to_the_next(backend):
    marker = "state-" + secrets.token_hex(6)
    n = 2 * backend.backend.capacity
    write = f"""
import os
for d in ('.', os.environ.get('HOME', '.'), os.environ.get('TMPDIR', '.'), '/tmp', '/dev/shm', '/var/tmp'):
    try:
        open(os.path.join(d, {marker!r}), 'w').write('x')
    except OSError:
        pass
print('ok')
"""
    read = f"""
import os
found = []
for top in ('/tmp', '/dev/shm', '/var/tmp', os.environ.get('HOME', '.'), '.'):
    for root, dirs, files in os.walk(top):
        if {marker!r} in files:
            found.append(root)
print(found)
"""
    w = backend.run(Batch(program=Source(language="python", code=write), runs=[RunSpec(id=str(i)) for i in range(n)]))
    assert all(r.status == Status.OK for r in w.runs)
    r = backend.run(Batch(program=Source(language="python", code=read), runs=[RunSpec(id=str(i)) for i in range(n)]))
    assert [x.stdout for x in r.runs] == [b"[]\n"] * n
    assert_healthy(backend)


def test_no_tcp_state_carries_an_answer_to_the_next_run(backend):
    # Hostile review: a slot's network namespace lives for many runs, and a closed loopback
    # connection stays in TIME_WAIT (listed in /proc/net/tcp) for 60 s, its address pair
    # in the TCP metrics cache for up to an hour. A correct run stored its answer as the
    # source address of a connection (127.x.y.z, keyed by its input); a later submission
    # that never computed anything read it back and got AC on every test. Runs get no
    # network sockets, so nothing of the kind can be left.
    secret = [secrets.randbelow(250) + 1 for _ in range(3)]
    n = 2 * backend.backend.capacity
    write = f"""
import socket
src = "127.%d.%d.%d" % tuple({secret!r})
try:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    c = socket.socket()
    c.bind((src, 0))
    c.connect(listener.getsockname())
    s, _ = listener.accept()
    c.send(b"x"); s.recv(1); s.send(b"y"); c.recv(1)
    c.close(); s.close(); listener.close()
    print("left a connection")
except OSError as e:
    print("refused", e.errno)
"""
    read = f"""
want = "%02X%02X%02X7F" % tuple(reversed({secret!r}))  # /proc/net/tcp: little-endian hex
seen = []
for name in ("/proc/net/tcp", "/proc/net/tcp6"):
    try:
        seen += [line.split()[1] for line in open(name).read().splitlines()[1:]]
    except OSError:
        pass
print([a for a in seen if want in a.upper()])
"""
    w = backend.run(Batch(program=Source(language="python", code=write), runs=[RunSpec(id=str(i)) for i in range(n)]))
    assert all(r.status == Status.OK for r in w.runs), w.runs
    assert all(r.stdout.startswith(b"refused") for r in w.runs), [r.stdout for r in w.runs]
    r = backend.run(Batch(program=Source(language="python", code=read), runs=[RunSpec(id=str(i)) for i in range(n)]))
    assert [x.stdout for x in r.runs] == [b"[]\n"] * n, [x.stdout for x in r.runs]
    assert_healthy(backend)


def test_no_process_survives_the_run(backend):
    marker = f"{secrets.randbelow(10**6)}.{secrets.randbelow(10**6):06d}"
    code = f"""
import os
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for fd in (0, 1, 2):
            os.close(fd)
        os.execv('/bin/sleep', ['sleep', {marker!r}])
    os._exit(0)
os.wait()
print('daemonized')
"""
    r = backend.run_code("python", code)
    assert r.status == Status.OK and r.stdout == b"daemonized\n", r
    assert host_pids_with_cmdline(marker.encode()) == [], "a daemonized grandchild survived the run"
    assert_no_run_processes_left(backend)
    assert_healthy(backend)


def test_cannot_move_onto_another_slots_core(backend):
    # Slots are pinned one core each (sandboxes/backends/cpu_pin.py); a run that widened its
    # affinity, from Python or from C, would take CPU from the slot next to it. Reading it
    # stays allowed; a forked child and a thread are refused as the run itself is.
    code = r"""
import ctypes, json, os, threading
libc = ctypes.CDLL(None, use_errno=True)
before = sorted(os.sched_getaffinity(0))
res = {"before": before, "all": list(range(os.cpu_count()))}
try:
    os.sched_setaffinity(0, set(range(os.cpu_count())))
    res["python"] = "allowed"
except PermissionError:
    res["python"] = "EPERM"
mask = ctypes.c_ulong((1 << os.cpu_count()) - 1)
rc = libc.sched_setaffinity(0, ctypes.sizeof(mask), ctypes.byref(mask))
res["libc"] = "EPERM" if rc != 0 and ctypes.get_errno() == 1 else "rc=%d errno=%d" % (rc, ctypes.get_errno())
rc = libc.syscall(203, 0, ctypes.sizeof(mask), ctypes.byref(mask))
res["syscall"] = "EPERM" if rc != 0 and ctypes.get_errno() == 1 else "rc=%d" % rc
pid = os.fork()
if pid == 0:
    try:
        os.sched_setaffinity(0, set(range(os.cpu_count())))
        os._exit(0)
    except PermissionError:
        os._exit(3)
res["child"] = os.WEXITSTATUS(os.waitpid(pid, 0)[1])
box = []
def widen():
    try:
        os.sched_setaffinity(0, set(range(os.cpu_count())))
        box.append("allowed")
    except PermissionError:
        box.append("EPERM")
t = threading.Thread(target=widen)
t.start(); t.join()
res["thread"] = box[0]
res["after"] = sorted(os.sched_getaffinity(0))
print(json.dumps(res))
"""
    out = _json_out(backend.run_code("python", code))
    assert (out["python"], out["libc"], out["syscall"], out["child"], out["thread"]) == \
        ("EPERM", "EPERM", "EPERM", 3, "EPERM"), out
    assert out["after"] == out["before"], out
    assert_healthy(backend)


def test_cannot_create_namespaces_or_reach_risky_syscalls(backend):
    # A user namespace would hand the run capabilities over fresh kernel objects (an
    # exploit path); the seccomp filter refuses it and the other listed calls.
    code = r"""
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
res = {}
flags = {"user": 0x10000000, "net": 0x40000000, "mnt": 0x20000, "pid": 0x20000000}
for name, flag in flags.items():
    pid = os.fork()
    if pid == 0:
        os._exit(0 if libc.unshare(flag) == 0 else 1)
    res["unshare " + name] = os.WEXITSTATUS(os.waitpid(pid, 0)[1]) == 0
res["mount"] = libc.mount(b"none", b".", b"tmpfs", 0, None) == 0
res["bpf"] = libc.syscall(321, 0, None, 0) >= 0
res["io_uring"] = libc.syscall(425, 1, None) >= 0
res["userfaultfd"] = libc.syscall(323, 0) >= 0
print(json.dumps(res))
"""
    out = _json_out(backend.run_code("python", code))
    assert not any(out.values()), out
    assert_healthy(backend)
