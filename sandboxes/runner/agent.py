"""The runner agent: serves compile/run requests over frames (PROTOCOL.md), stdlib only.

Three homes, one code path (``core.Runner``):
- local: ``python3 -S -m sandboxes.runner.agent --fd 3`` inside a long-lived bwrap
  namespace per slot (started by ``sandboxes.backends.local``);
- docker: the container's main process, ``--stdio`` or ``--listen /run/agent.sock``;
- lambda: no process at all: the handler calls :func:`execute_batch`.
"""

from __future__ import annotations

import argparse
import os
import select
import socket
import sys
import traceback

from sandboxes import languages
from sandboxes.runner.cgroup import CgroupDirs
from sandboxes.runner.core import ArtifactMissing, RequestError, Runner, RunnerConfig
from sandboxes.runner.process import set_child_subreaper
from sandboxes.runner.protocol import Channel, ProtocolError

PROTOCOL_VERSION = 1


def handle(runner: Runner, req: dict, fds: list[int]) -> tuple[dict, bool]:
    """Answer one request; returns (reply, keep_going)."""
    op = req.get("op")
    try:
        if op == "hello":
            # The host may take each compile/run's reset off its path: the agent then
            # answers first and sends {"id", "ready", "leftover"?} once the reset is done.
            runner.defer_reset = bool(req.get("reset_after_reply"))
            runner.raw_output = bool(req.get("raw_output"))  # outputs after the JSON, not base64
            return {"ok": True, "reset_after_reply": runner.defer_reset,
                    "raw_output": runner.raw_output, "protocol": PROTOCOL_VERSION, "pid": os.getpid(), "uid": os.getuid(),
                    "run_uid": runner.cfg.uid, "spawn": runner.spawn_mode,
                    "python_fork_server": runner.pyfork is not None,
                    "accounting": runner.accounting,
                    "languages": languages.describe()}, True
        if op == "compile":
            return runner.compile(req), True
        if op == "run":
            return runner.run(req, fds), True
        if op == "shutdown":
            return {"ok": True}, False
        return {"error": f"unknown op {op!r}", "code": "bad_request"}, True
    except RequestError as exc:
        return {"error": str(exc), "code": "bad_request"}, True
    except ArtifactMissing as exc:
        return {"error": str(exc), "code": "artifact_missing"}, True
    except Exception as exc:  # noqa: BLE001 - an agent failure is an IE for this request
        traceback.print_exc(file=sys.stderr)
        return {"error": f"{type(exc).__name__}: {exc}", "code": "internal"}, True
    finally:
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass


def serve(channel: Channel, runner: Runner) -> None:
    """Answer requests until shutdown or EOF."""
    while True:
        try:
            req, fds = channel.recv()
        except ProtocolError:
            return
        reply, keep_going = handle(runner, req, fds)
        reply["id"] = req.get("id")
        channel.send(reply)
        if not keep_going:
            return
        if runner.defer_reset and req.get("op") in ("compile", "run"):
            try:
                left = runner.finish_reset()
            except Exception as exc:  # noqa: BLE001 - a reset that failed leaves a dirty sandbox
                traceback.print_exc(file=sys.stderr)
                left = [f"reset failed: {type(exc).__name__}: {exc}"]
            ready = {"id": req.get("id"), "ready": True}
            if left:
                ready["leftover"] = left
            channel.send(ready)
        # While the host reads the reply: make the next run group, remove old ones unless
        # the next request is already waiting.
        runner.housekeeping(busy=lambda: _readable(channel.rfd))


def pin_to_cpu(cpu: int) -> None:
    """One core for this slot: its zygote, spawn server and every run inherit it. A slot's
    test chain (agent, fork server, run) then stays on one core instead of moving between
    cores at each hand-off; on 2 cores that was 9-13 % more Python tests per second
    (BENCHMARKS.md). Where the CPU is not ours (a container's cpuset), the slot runs
    unpinned and says so on stderr: pinning is speed, not isolation."""
    try:
        os.sched_setaffinity(0, {cpu})
    except OSError as exc:
        print(f"agent: cannot pin to CPU {cpu}, running unpinned: {exc}", file=sys.stderr)


def _readable(fd: int) -> bool:
    return bool(select.select([fd], [], [], 0)[0])


def _stdio_channel() -> Channel:
    """Frames on the original fd 0/1; fd 1 then points at stderr so stray prints cannot corrupt them."""
    rfd, wfd = os.dup(0), os.dup(1)
    os.set_inheritable(rfd, False)
    os.set_inheritable(wfd, False)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    return Channel(rfd, wfd)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="sandboxes.runner.agent", description=__doc__)
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--stdio", action="store_true", help="frames on stdin/stdout")
    how.add_argument("--fd", type=int, help="a connected AF_UNIX stream socket fd")
    how.add_argument("--listen", metavar="PATH", help="bind a unix socket and serve connections")
    p.add_argument("--scratch-root", default="/tmp")
    p.add_argument("--run-uid", type=int, default=65534)
    p.add_argument("--run-gid", type=int, default=None)
    p.add_argument("--no-setuid", action="store_true", help="run as our own uid (unprivileged hosts)")
    p.add_argument("--wipe", action="append", default=[], help="dir emptied after every run")
    p.add_argument("--clear-ipc", action="store_true",
                   help="this agent owns its IPC namespace: empty it (SysV, POSIX mq) after every run")
    p.add_argument("--cgroup", action="append", default=[], metavar="KEY=DIR",
                   help="a cgroup dir delegated to this agent (KEY: unified for v2, or a v1 "
                        "controller: pids, cpuacct, memory); runs get groups below it")
    p.add_argument("--spawn", choices=["auto", "server", "shim", "fork"], default="auto",
                   help="start runs via the C spawn shim (fast) or os.fork (no compiler needed)")
    p.add_argument("--python-fork-server", choices=["on", "off"], default="on",
                   help="run Python tests as forks of a started interpreter (on) or exec each (off)")
    p.add_argument("--pch-root", default=os.environ.get("OUBLIETTE_PCH_ROOT") or None,
                   help="read-only dir of precompiled headers (sandboxes/runner/pch.py)")
    p.add_argument("--cpu", type=int, default=None, metavar="N",
                   help="pin this agent, and so every compile and run it starts, to CPU N "
                        "(the host gives each slot its own core; runs cannot change it: seccomp)")
    a = p.parse_args(argv)

    if a.cpu is not None:
        pin_to_cpu(a.cpu)
    uid = None if a.no_setuid else a.run_uid
    gid = None if a.no_setuid else (a.run_gid if a.run_gid is not None else a.run_uid)
    set_child_subreaper()
    runner = Runner(RunnerConfig(scratch_root=a.scratch_root, uid=uid, gid=gid,
                                 wipe_dirs=a.wipe, reap_orphans=True, spawn=a.spawn,
                                 clear_ipc=a.clear_ipc, cgroup=CgroupDirs.parse(a.cgroup),
                                 python_fork_server=a.python_fork_server == "on",
                                 pch_root=a.pch_root))
    if a.stdio:
        serve(_stdio_channel(), runner)
    elif a.fd is not None:
        os.set_inheritable(a.fd, False)
        sock = socket.socket(fileno=a.fd)
        serve(Channel.from_socket(sock), runner)
    else:
        try:
            os.unlink(a.listen)
        except FileNotFoundError:
            pass
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(a.listen)
        srv.listen(1)
        while True:
            conn, _ = srv.accept()
            with conn:
                serve(Channel.from_socket(conn), runner)
    return 0


def execute_batch(batch, resolver, workdir: str, **options):
    """Library entry (Lambda handler, tests): run a ``sandboxes.types.Batch`` in-process.

    ``resolver`` has ``get(link) -> bytes``; ``workdir`` is the scratch root. Returns a
    ``sandboxes.types.BatchResult``. Imported lazily so the agent itself needs no pydantic.
    """
    from sandboxes.runner.library import execute_batch as _execute

    return _execute(batch, resolver, workdir, **options)


if __name__ == "__main__":
    sys.exit(main())
