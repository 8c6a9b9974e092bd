"""The Lambda image's entrypoint: serve the handler, and enforce the function timeout.

Two ways the image is started:

- On AWS (``AWS_LAMBDA_RUNTIME_API`` is set): the Lambda Runtime API loop, in a few lines
  of stdlib (``GET .../invocation/next``, ``POST .../response`` or ``.../error``). AWS
  itself enforces the function's timeout there.
- Anywhere else (moto, ``docker run IMAGE <handler> '<event JSON>'``): the event is argv[2];
  the reply is printed as the LAST line of stdout (moto takes the last line as the
  payload) and the exit status is non-zero on an error (moto reports FunctionError).
  moto ignores the function's Timeout, so this entrypoint enforces
  ``AWS_LAMBDA_FUNCTION_TIMEOUT``: the handler runs in a child process (its own process
  group) and is killed at the deadline, with a timeout error as the reply.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import traceback
import urllib.request

_RUNTIME_PATH = "2018-06-01/runtime/invocation"


def _error(kind: str, message: str) -> dict:
    return {"errorType": kind, "errorMessage": message}


def _call_handler(event) -> dict:
    from sandboxes.lambda_handler.handler import handle
    return handle(event)


def serve_runtime_api(api: str) -> None:
    """The Runtime API loop (real Lambda). One invocation at a time, until an invocation's
    clean-up leaves something behind: then this process exits after answering, and Lambda
    starts a fresh runtime for the next event instead of reusing a dirty one."""
    from sandboxes.lambda_handler.handler import environment_dirty
    from sandboxes.runner.process import set_child_subreaper
    set_child_subreaper()  # a run's orphans come back to us: killed and reaped after each run
    base = f"http://{api}/{_RUNTIME_PATH}"
    while True:
        with urllib.request.urlopen(f"{base}/next") as resp:
            request_id = resp.headers["Lambda-Runtime-Aws-Request-Id"]
            body = resp.read()
        try:
            reply, path = _call_handler(json.loads(body)), "response"
        except Exception as e:  # noqa: BLE001 - reported to Lambda as a function error
            traceback.print_exc()
            reply, path = _error(type(e).__name__, str(e)), "error"
        req = urllib.request.Request(f"{base}/{request_id}/{path}", data=json.dumps(reply).encode(),
                                     method="POST", headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req).close()
        dirty = environment_dirty()
        if dirty:
            print(f"runtime: exiting, a run's clean-up left: {'; '.join(dirty)}", file=sys.stderr, flush=True)
            os._exit(3)


def _children() -> list[int]:
    me, found = os.getpid(), []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    if int(f.read().rsplit(b")", 1)[1].split()[1]) == me:
                        found.append(int(name))
            except (OSError, IndexError, ValueError):
                pass
    return found


def _kill_orphans(rounds: int = 50) -> None:
    """Runs live in their own sessions: once the handler is killed they are re-parented to
    us (a subreaper), and are killed here, group and all, until none is left."""
    for _ in range(rounds):
        kids = _children()
        if not kids:
            return
        for kid in kids:
            for kill in (os.killpg, os.kill):
                try:
                    kill(kid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        for kid in kids:
            try:
                os.waitpid(kid, 0)
            except ChildProcessError:
                pass


def run_once(event_text: str, timeout_s: float) -> tuple[dict, int]:
    """Run one event in a child process, killed at ``timeout_s``; return (reply, exit status)."""
    from sandboxes.runner.process import set_child_subreaper
    set_child_subreaper()
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: own process group, so the kill reaches the runs it started
        os.close(rfd)
        os.setpgid(0, 0)
        status = 0
        try:
            reply = _call_handler(json.loads(event_text))
        except Exception as e:  # noqa: BLE001
            traceback.print_exc()
            reply, status = _error(type(e).__name__, str(e)), 1
        data = json.dumps(reply).encode()
        view = memoryview(data)
        while view:
            view = view[os.write(wfd, view):]
        os._exit(status)
    os.close(wfd)
    deadline = time.monotonic() + timeout_s
    chunks: list[bytes] = []
    os.set_blocking(rfd, False)
    import select
    timed_out = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        ready, _, _ = select.select([rfd], [], [], left)
        if ready:
            chunk = os.read(rfd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    os.close(rfd)
    if timed_out:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
        _kill_orphans()
        return _error("Sandbox.Timedout", f"Task timed out after {timeout_s:.2f} seconds"), 1
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    try:
        return json.loads(b"".join(chunks)), (1 if code else 0)
    except ValueError:
        return _error("Runtime.ExitError", f"handler process exited with status {code} and no reply"), 1


def scrub_cmdline() -> None:
    """Zero our argv area: moto passes the event on the command line, and /proc/<pid>/cmdline
    is world-readable even for a non-dumpable process, so a run could read the whole event
    (every run's code and small inputs). Python has already copied argv."""
    import ctypes
    try:
        with open("/proc/self/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        # Fields 48/49 of stat (arg_start, arg_end); fields[0] here is field 3 (state).
        start, end = int(fields[45]), int(fields[46])
        if 0 < start < end:
            ctypes.memset(start, 0, end - start)
    except (OSError, IndexError, ValueError):
        pass


def main(argv: list[str]) -> int:
    from sandboxes.lambda_handler.handler import protect_self
    protect_self()  # inherited by the handler child: runs of our uid cannot read our environ
    api = os.environ.get("AWS_LAMBDA_RUNTIME_API")
    if api:
        serve_runtime_api(api)
        return 0
    if len(argv) < 2:
        print(json.dumps(_error("Runtime.InvalidEntrypoint", "usage: entry HANDLER EVENT_JSON")))
        return 2
    timeout_s = float(os.environ.get("AWS_LAMBDA_FUNCTION_TIMEOUT") or 60)
    event_text = argv[1]
    scrub_cmdline()
    reply, status = run_once(event_text, timeout_s)
    sys.stdout.flush()
    sys.stdout.write("\n" + json.dumps(reply, separators=(",", ":")) + "\n")
    sys.stdout.flush()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
