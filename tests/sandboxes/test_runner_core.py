"""The runner core without any backend: framing, limits, classification, the agent over
stdio (as the docker backend drives it) and the library entry (as Lambda calls it)."""

from __future__ import annotations

import base64
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from sandboxes.runner import execute_batch
from sandboxes.runner import convert
from sandboxes.runner.classify import classify
from sandboxes.runner.limits import Limits
from sandboxes.runner.process import Outcome
from sandboxes.runner.protocol import Channel, ProtocolError
from sandboxes.types import Batch, Blob, RunLimits, RunSpec, Source, Status

REPO = Path(__file__).resolve().parents[2]


def test_limits_mirror_the_pydantic_defaults():
    assert Limits().to_dict() == RunLimits().model_dump()


def test_limits_reject_unknown_and_bad_fields():
    with pytest.raises(ValueError, match="unknown limit field"):
        Limits.from_dict({"cpu_s": 1})
    with pytest.raises(ValueError, match="> 0"):
        Limits.from_dict({"cpu_time_s": 0})


@pytest.mark.parametrize("outcome,status", [
    (Outcome(exit_code=0), "OK"),
    (Outcome(exit_code=1), "RE"),
    (Outcome(signal=signal.SIGSEGV), "RE"),
    (Outcome(signal=signal.SIGKILL, killed_for="output"), "OLE"),
    (Outcome(signal=signal.SIGKILL, killed_for="wall"), "TLE"),
    (Outcome(signal=signal.SIGKILL, killed_for="cpu"), "TLE"),
    (Outcome(signal=signal.SIGXCPU), "TLE"),
    (Outcome(exit_code=0, cpu_time_s=2.5), "TLE"),
    (Outcome(exit_code=0, memory_kb=300 * 1024), "MLE"),
    (Outcome(exit_code=1, stderr=b"MemoryError\n"), "MLE"),
    (Outcome(signal=signal.SIGABRT, stderr=b"what():  std::bad_alloc"), "MLE"),
    (Outcome(signal=signal.SIGKILL), "MLE"),  # nobody in the agent sent it: the kernel did
    (Outcome(signal=signal.SIGXFSZ), "RE"),
    (Outcome(setup_error="spawn_shim: setuid: Operation not permitted"), "IE"),
    (Outcome(setup_error="spawn_shim: execve: Cannot allocate memory"), "MLE"),
])
def test_classification(outcome, status):
    got, message = classify(outcome, Limits())
    assert got == status
    assert (message == "") == (status == "OK")


def test_frames_carry_json_and_file_descriptors(tmp_path):
    a, b = socket.socketpair()
    left, right = Channel.from_socket(a), Channel.from_socket(b)
    f = tmp_path / "x"
    f.write_bytes(b"through an fd")
    fd = os.open(f, os.O_RDONLY)
    sender = threading.Thread(target=left.send, args=({"op": "run", "big": "y" * 300_000}, [fd]))
    sender.start()  # bigger than the socket buffer: the reader must run meanwhile
    obj, fds = right.recv()
    sender.join()
    os.close(fd)
    assert obj["op"] == "run" and len(obj["big"]) == 300_000
    assert len(fds) == 1 and os.read(fds[0], 100) == b"through an fd"
    os.close(fds[0])
    left.close()
    with pytest.raises(ProtocolError, match="closed"):
        right.recv()
    right.close()


@pytest.mark.parametrize("transport", ["socket", "pipe"])
def test_frames_carry_raw_bytes_after_the_json(transport):
    """Top-level bytes travel raw after the JSON, in order, and come back as bytes: big
    (more than the socket buffer), empty, and with every byte value; the next frame is intact."""
    if transport == "socket":
        a, b = socket.socketpair()
        left, right = Channel.from_socket(a), Channel.from_socket(b)
    else:
        r1, w1 = os.pipe()
        r2, w2 = os.pipe()
        left, right = Channel(r2, w1), Channel(r1, w2)
    big = bytes(range(256)) * 40_000 + b"\x00tail"
    msg = {"id": 7, "stdout": big, "stderr": b"", "message": "x", "note": bytearray(b"\xff\n")}
    sender = threading.Thread(target=lambda: (left.send(msg), left.send({"id": 8})))
    sender.start()
    obj, _ = right.recv()
    nxt, _ = right.recv()
    sender.join()
    assert obj == {"id": 7, "stdout": big, "stderr": b"", "message": "x", "note": b"\xff\n"}
    assert all(type(obj[k]) is bytes for k in ("stdout", "stderr", "note"))
    assert nxt == {"id": 8}
    assert "raw" not in msg and type(msg["stdout"]) is bytes  # the sender's object is not changed
    left.close()
    right.close()


@pytest.mark.parametrize("raw", [{"raw": "x"}, {"raw": [["a"]]}, {"raw": [["a", -1]]},
                                 {"raw": [["a", 1.5]]}, {"raw": [["raw", 1]]}, {"raw": [[1, 2]]},
                                 {"raw": [["a", True]]}, {"raw": [["a", 1]] * 9},
                                 {"raw": [["a", 1 << 30], ["b", 1]]}])
def test_frames_with_a_malformed_raw_list_are_refused(raw):
    with pytest.raises(ProtocolError, match="raw"):
        Channel.raw_length(raw)


def test_frames_reject_garbage():
    a, b = socket.socketpair()
    a.sendall(b"\x00\x00\x00\x03abc")
    with pytest.raises(ProtocolError, match="not JSON"):
        Channel.from_socket(b).recv()
    a.close()
    b.close()


@pytest.fixture
def stdio_agent(tmp_path):
    """The agent as a docker container runs it: frames on stdin/stdout, no setuid."""
    proc = subprocess.Popen(
        ["/usr/bin/python3", "-S", "-m", "sandboxes.runner.agent", "--stdio", "--no-setuid",
         "--scratch-root", str(tmp_path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=REPO, env={"PYTHONPATH": str(REPO)})
    chan = Channel(proc.stdout.fileno(), proc.stdin.fileno())
    yield chan
    try:
        chan.send({"id": 99, "op": "shutdown"})
        assert chan.recv()[0] == {"id": 99, "ok": True}
    finally:
        proc.wait(10)


def test_agent_protocol_over_stdio(stdio_agent):
    chan = stdio_agent
    chan.send({"id": 1, "op": "hello"})
    hello, _ = chan.recv()
    assert hello["id"] == 1 and hello["protocol"] == 1 and "cpp" in hello["languages"]
    assert hello["spawn"] in ("shim", "fork")

    chan.send({"id": 2, "op": "compile", "language": "c",
               "code": '#include <stdio.h>\nint main(){int a,b;scanf("%d%d",&a,&b);printf("%d\\n",a*b);}'})
    comp, _ = chan.recv()
    assert comp["status"] == "OK" and comp["artifact"]["language"] == "binary"
    sha = comp["artifact"]["sha256"]

    # By sha256 only: the agent kept the artifact it built.
    chan.send({"id": 3, "op": "run", "program": {"language": "binary", "sha256": sha},
               "stdin": {"data_b64": base64.b64encode(b"6 7\n").decode()}})
    run, _ = chan.recv()
    assert run["status"] == "OK" and base64.b64decode(run["stdout_b64"]) == b"42\n"

    chan.send({"id": 4, "op": "run", "program": {"language": "binary", "sha256": "ab" * 32}})
    miss, _ = chan.recv()
    assert miss["code"] == "artifact_missing"

    chan.send({"id": 5, "op": "run", "program": {"language": "binary", "sha256": sha},
               "files": {"../escape": {"data_b64": ""}}})
    bad, _ = chan.recv()
    assert bad["code"] == "bad_request" and "plain name" in bad["error"]

    chan.send({"id": 6, "op": "frobnicate"})
    assert chan.recv()[0]["code"] == "bad_request"

    # Asked for in hello: a run's output comes raw after the reply's JSON, as bytes.
    chan.send({"id": 7, "op": "hello", "raw_output": True})
    assert chan.recv()[0]["raw_output"] is True
    chan.send({"id": 8, "op": "run", "program": {"language": "binary", "sha256": sha},
               "stdin": {"data_b64": base64.b64encode(b"6 7\n").decode()}})
    run, _ = chan.recv()
    assert run["status"] == "OK" and run["stdout"] == b"42\n" and run["stderr"] == b""
    assert "stdout_b64" not in run and "raw" not in run
    assert convert.run_result("t", run).stdout == b"42\n"


@pytest.mark.parametrize("spawn", ["shim", "fork"])
def test_library_execute_batch_both_spawn_paths(tmp_path, spawn):
    batch = Batch(program=Source(language="python", code="import sys\nprint(sys.stdin.read().upper(), end='')\n"),
                  runs=[RunSpec(id="a", stdin=Blob(data=b"abc")),
                        RunSpec(id="b", stdin=Blob(data=b"x"), limits=RunLimits(output_bytes=0))])
    res = execute_batch(batch, None, str(tmp_path / "work"), spawn=spawn)
    assert res.compile.status == Status.OK
    assert (res.runs[0].status, res.runs[0].stdout) == (Status.OK, b"ABC")
    assert res.runs[1].status == Status.OLE
    if spawn == "shim":
        assert 0 < res.runs[0].memory_kb < 30_000, "the program's own peak, not the caller's"


def test_library_resolves_links(tmp_path):
    from problem_store.blobs.file import FileBlobStore

    store = FileBlobStore(tmp_path / "store")
    link, _ = store.put(b"5 6\n")
    batch = Batch(program=Source(language="python", code="print(sum(map(int, input().split())))\n"),
                  runs=[RunSpec(id="a", stdin=Blob(link=link))])
    res = execute_batch(batch, store, str(tmp_path / "work"))
    assert res.runs[0].stdout == b"11\n"


@pytest.fixture
def open_tmp():
    """A temp dir that uid 65534 can reach (pytest's tmp_path lives under a 0700 dir)."""
    import shutil
    import tempfile

    d = Path(tempfile.mkdtemp(prefix="sbx-nobody-"))
    os.chmod(d, 0o777)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def test_library_without_uid_wipes_new_entries_and_hides_the_caller(open_tmp):
    """As in a Lambda: the caller is not root and runs share its uid."""
    tmp_path = open_tmp
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    (shared / "old").write_text("kept")
    os.chmod(shared, 0o777)
    code = (f"import os\nopen({str(shared / 'left')!r}, 'w').write('x')\n"
            f"print(sorted(os.listdir({str(shared)!r})))\n"
            "try:\n    open(f'/proc/{os.getppid()}/environ', 'rb').read(); print('read')\n"
            "except OSError:\n    print('denied')\n")
    site = next(p for p in sys.path if p.endswith("site-packages"))
    caller = f"""
import os, sys
os.setgroups([]); os.setgid(65534); os.setuid(65534)
sys.path[:0] = [{str(REPO)!r}, {site!r}]
from sandboxes.runner import execute_batch
from sandboxes.types import Batch, RunSpec, Source
res = execute_batch(Batch(program=Source(language="python", code={code!r}), runs=[RunSpec(id="a"), RunSpec(id="b")]),
                    None, {str(tmp_path / "work")!r}, wipe_new_in=[{str(shared)!r}], spawn="fork")
sys.stdout.write(repr([r.stdout for r in res.runs]))
"""
    # The system interpreter (the venv's lives under /root, out of reach of uid 65534).
    out = subprocess.run(["/usr/bin/python3", "-S", "-c", caller], capture_output=True, cwd="/")
    assert out.returncode == 0, out.stderr.decode()
    assert out.stdout.decode() == repr([b"['left', 'old']\ndenied\n"] * 2)
    assert sorted(os.listdir(shared)) == ["old"]


_SOCKET_PROBE = r"""
import json, socket, sys, tempfile
from sandboxes.runner import execute_batch
from sandboxes.types import Batch, RunSpec, Source
probe = '''
import json, socket
out = {}
for name, fam, typ in (("inet", 2, socket.SOCK_STREAM), ("inet6", 10, socket.SOCK_DGRAM), ("packet", 17, socket.SOCK_RAW),
                       ("vsock", 40, socket.SOCK_STREAM), ("unix", 1, socket.SOCK_STREAM), ("pair", 0, 0)):
    try:
        (socket.socketpair() if name == "pair" else socket.socket(fam, typ)).__class__
        out[name] = "ok"
    except OSError as e:
        out[name] = e.errno
print(json.dumps(out))
'''
res = {}
for spawn in ("shim", "fork"):
    r = execute_batch(Batch(program=Source(language="python", code=probe), runs=[RunSpec(id="a")]),
                      None, tempfile.mkdtemp(), spawn=spawn)
    res[spawn] = json.loads(r.runs[0].stdout)
print(json.dumps(res))
"""


def test_runs_get_no_network_sockets_either_way():
    """The filter every backend's runs get: socket() for AF_INET/AF_INET6/AF_PACKET/AF_VSOCK
    fails with EACCES in runs started either way (spawn shim, fork); AF_UNIX and socketpair
    stay. Run in a child process, as a library caller would."""
    import errno
    import json
    p = subprocess.run([sys.executable, "-c", _SOCKET_PROBE], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}, timeout=120)
    assert p.returncode == 0, p.stderr
    res = json.loads(p.stdout.splitlines()[-1])
    net = errno.EACCES
    want = {"inet": net, "inet6": net, "packet": net, "vsock": net, "unix": "ok", "pair": "ok"}
    assert res == {"shim": want, "fork": want}


def test_a_box_is_removed_whole_and_no_link_in_it_is_followed(tmp_path):
    from sandboxes.runner.core import remove_box

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("host file")
    for name, nested in (("flat", False), ("nested", True)):
        box = tmp_path / name
        box.mkdir()
        (box / "main").write_bytes(b"\x7fELF")
        (box / "out.txt").write_text("x" * 10000)
        (box / "link_to_file").symlink_to(outside / "keep.txt")
        (box / "link_to_dir").symlink_to(outside)
        if nested:
            (box / "sub" / "deeper").mkdir(parents=True)
            (box / "sub" / "deeper" / "f").write_text("y")
            (box / "sub" / "link").symlink_to(outside)
        remove_box(str(box))
        assert not box.exists() and not box.is_symlink(), name
    assert sorted(os.listdir(outside)) == ["keep.txt"] and (outside / "keep.txt").read_text() == "host file"
    remove_box(str(tmp_path / "never-made"))  # nothing there: nothing to do, no error
    link = tmp_path / "box-link"
    link.symlink_to(outside)
    remove_box(str(link))  # a box path that is a link is not followed into
    assert (outside / "keep.txt").exists()


def test_a_tree_deeper_than_the_recursion_limit_is_removed_without_following_links(tmp_path):
    """A run can nest directories as deep as its scratch's file cap: shutil.rmtree failed
    past the recursion limit (RecursionError), the slot counted as unclean and the next
    request paid for a new sandbox (hostile review 5). remove_tree walks any depth with one
    directory open, and links at any level are removed, never followed."""
    import sys

    from sandboxes.runner.core import empty_dir
    from sandboxes.runner.reset import remove_tree

    outside = tmp_path / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "keep.txt").write_text("host file")
    depth = sys.getrecursionlimit() * 3
    for root_name in ("box", "wiped"):
        root = tmp_path / root_name
        root.mkdir()
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for level in range(depth):
                if level % 500 == 0:  # files, a link to a file and one to a dir, and a side branch
                    os.close(os.open("f", os.O_CREAT | os.O_WRONLY, 0o600, dir_fd=fd))
                    os.symlink(str(outside / "keep.txt"), "lf", dir_fd=fd)
                    os.symlink(str(outside / "dir"), "ld", dir_fd=fd)
                    os.mkdir("side", dir_fd=fd)
                os.mkdir("d", dir_fd=fd)
                child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
                os.close(fd)
                fd = child
        finally:
            os.close(fd)
    remove_tree(str(tmp_path / "box"))
    assert not (tmp_path / "box").exists()
    assert empty_dir(str(tmp_path / "wiped")) is True  # the wipe of /dev/shm takes the same path
    assert os.listdir(tmp_path / "wiped") == []
    assert sorted(os.listdir(outside)) == ["dir", "keep.txt"] and (outside / "keep.txt").read_text() == "host file"
    remove_tree(str(tmp_path / "never-made"))  # nothing there: no error
    link = tmp_path / "tree-link"
    link.symlink_to(outside)
    remove_tree(str(link))  # the link goes, not what it points at
    assert not link.is_symlink() and (outside / "keep.txt").exists()


def test_the_idleness_rule_counts_a_share_of_the_clock_not_any_growth():
    from sandboxes.runner.watch import IdleWatch, run_idle_limit

    w = IdleWatch(1.0, start=0.0)
    # a sleeper that wakes every 20 ms (a few microseconds of CPU each time) is idle at 1 s
    verdicts = [w.idle(used=t * 0.0002, now=t) for t in (0.2, 0.4, 0.6, 0.8, 1.0)]
    assert verdicts == [False, False, False, False, True]
    # a program computing at 5 % of a core or more keeps going, whatever the gaps
    w = IdleWatch(1.0, start=0.0)
    assert not any(w.idle(used=t * 0.05, now=t) for t in (0.5, 1.0, 1.5, 2.0, 2.5, 3.0))
    # computing, then going to sleep: idle a whole limit after the last progress
    w = IdleWatch(1.0, start=0.0)
    assert not w.idle(used=0.5, now=0.5)
    assert not w.idle(used=0.5, now=1.4) and w.idle(used=0.5, now=1.5)
    assert IdleWatch(None, 0.0).idle(0.0, 1e9) is False
    assert run_idle_limit(1.0, 3.0) == 1.0 and run_idle_limit(0.2, 3.0) == 1.0 and run_idle_limit(5.0, 15.0) == 5.0
    assert run_idle_limit(1.0, 1.0) is None  # the wall limit comes first anyway


def test_waiting_for_a_core_is_not_idleness():
    """A run that wanted a CPU and did not get one (its schedstat run-queue time grew, or a
    thread is runnable when asked) is not idle; one that slept is; unseen threads are no verdict."""
    from sandboxes.runner.watch import IdleWatch

    state = {"active": (0.0, False)}

    def active():
        return state["active"]

    # starved, picked now and then: no CPU growth worth a share, run-queue time grows
    w = IdleWatch(1.0, start=0.0, active=active)
    verdicts = []
    for t in (0.05, 0.5, 1.0, 1.5):
        state["active"] = (t, False)
        verdicts.append(w.idle(used=0.0, now=t))
    assert verdicts == [False] * 4
    # starved all along: schedstat shows no wait yet (added when it runs), but it is runnable
    w = IdleWatch(1.0, start=0.0, active=active)
    state["active"] = (0.0, True)
    assert not any(w.idle(used=0.0, now=t) for t in (0.05, 0.5, 1.0, 1.5))
    # asleep: neither CPU nor run-queue time grows, nothing runnable: idle a limit after the
    # last progress
    w = IdleWatch(1.0, start=0.0, active=active)
    state["active"] = (0.003, False)
    # (its 3 ms of CPU by 0.05 s are progress: the window starts there)
    assert [w.idle(used=0.003, now=t) for t in (0.05, 0.5, 1.04, 1.05)] == [False, False, False, True]
    # starved first, then asleep: the window restarts when the starving ends
    w = IdleWatch(1.0, start=0.0, active=active)
    state["active"] = (0.0, False)
    assert not w.idle(used=0.0, now=0.05)
    state["active"] = (1.0, False)
    assert not w.idle(used=0.0, now=1.05)  # waited 1 s for a core: a new window from 1.05
    assert not w.idle(used=0.0, now=1.10)  # (its baseline)
    assert not w.idle(used=0.0, now=2.0) and w.idle(used=0.0, now=2.06)
    # no thread visible (not begun, or over and not reported yet): no idle verdict
    w = IdleWatch(1.0, start=0.0, active=lambda: None)
    assert not any(w.idle(used=0.0, now=t) for t in (0.05, 1.0, 2.0, 3.0))
    # no schedstat: CPU time alone, as before
    w = IdleWatch(1.0, start=0.0)
    assert [w.idle(used=0.0, now=t) for t in (0.5, 1.0)] == [False, True]


def test_wanting_a_core_while_one_was_free_is_idleness():
    """The review's herd: threads that wake together queue behind each other on an idle
    core (run-queue time grows far past their CPU, one may be runnable when asked), but the
    core sat idle: not starved, idle. The same wants on a core that was busy: starved."""
    from sandboxes.runner.watch import IdleWatch

    state = {"active": (0.0, False), "free": 0.0}
    w_args = dict(active=lambda: state["active"], free=lambda: state["free"])

    def window(free_per_s, runnable):
        w = IdleWatch(1.0, start=0.0, **w_args)
        state["active"], state["free"] = (0.0, False), 0.0
        out = [w.idle(used=0.0, now=0.05)]
        for t in (0.5, 1.0, 1.5):
            state["active"] = (t * 30, runnable)  # summed waits: 30x the clock
            state["free"] = free_per_s * t
            out.append(w.idle(used=0.0, now=t))
        return out

    assert window(free_per_s=0.99, runnable=False) == [False, False, True, True]
    assert window(free_per_s=0.99, runnable=True) == [False, False, True, True]
    assert window(free_per_s=0.0, runnable=False) == [False] * 4  # a busy core: starved
    assert window(free_per_s=0.3, runnable=True) == [False] * 4  # idle under half the window
    # the watch's own first stalled poll came at the end of the window (its core was busy):
    # no verdict until a quarter of the limit has been watched
    w = IdleWatch(1.0, start=0.0, **w_args)
    state["active"], state["free"] = (0.0, False), 0.0
    assert [w.idle(used=0.0, now=t) for t in (1.8, 1.9, 2.04)] == [False, False, False]
    assert w.idle(used=0.0, now=2.06)  # asleep, seen for 0.26 s
    # no /proc/stat: wanting a CPU decides
    w = IdleWatch(1.0, start=0.0, active=lambda: state["active"], free=lambda: None)
    state["active"] = (0.0, True)
    assert not any(w.idle(used=0.0, now=t) for t in (0.05, 1.0, 2.0))


def test_a_runs_threads_are_seen_running_or_waiting():
    from sandboxes.runner.cpu_meter import HAVE_SCHEDSTAT, active_s

    if not HAVE_SCHEDSTAT:
        pytest.skip("no schedstat on this kernel")
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    # blocked in read(2) on a pipe nobody writes: asleep for good once there
    sleeper = subprocess.Popen([sys.executable, "-c", "import os; r, w = os.pipe(); print(1, flush=True); os.read(r, 1)"],
                               stdout=subprocess.PIPE)
    try:
        assert sleeper.stdout.readline() == b"1\n"
        first = active_s([spinner.pid])
        while (now := active_s([spinner.pid]))[0] <= first[0]:
            pass
        assert now[1] is True  # a spinning thread is runnable (or running) whenever asked
        while open(f"/proc/{sleeper.pid}/syscall").read().split()[0] != "0":  # (until it is in read)
            pass
        asleep = active_s([sleeper.pid])
        assert asleep is not None and asleep[1] is False
        assert active_s([sleeper.pid])[0] == asleep[0]  # asleep: no CPU, no run-queue time
    finally:
        for p in (spinner, sleeper):
            p.kill()
            p.wait()
    assert active_s([spinner.pid]) is None  # gone: nothing to read
