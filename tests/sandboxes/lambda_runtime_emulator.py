"""A Lambda execution environment in a container, for tests (stdlib only; runs as pid 1).

Why: moto starts a fresh root container for every invoke, so it cannot show what happens
on AWS, where one execution environment serves invocation after invocation and the
function is not root. This program plays the part of AWS's side of one environment:

- it starts the image's own command (ENTRYPOINT + CMD, passed after ``--``) as a non-root
  user (``--uid``), with ``AWS_LAMBDA_RUNTIME_API`` pointing at
- a Lambda Runtime API server on 127.0.0.1 (the documented 2018-06-01 interface:
  ``GET /runtime/invocation/next``, ``POST /runtime/invocation/{id}/response`` and
  ``.../error``, ``POST /runtime/init/error``), serving one invocation at a time;
- invocations come from the test over a unix socket in ``--ipc`` (a root-only directory
  the function cannot open): a 4-byte big-endian length + JSON
  ``{"payload": str, "timeout_s": float}``, answered the same way with
  ``{"function_error": null | "Unhandled", "payload": str}``;
- the function's S3 endpoint, 127.0.0.1:``--s3-port``, is relayed to ``--ipc``/s3.sock,
  where the test forwards it to its own moto server (the container has no network).

Like AWS: at the deadline, or when the runtime exits, every process of the function's
uid is killed and the runtime is started again (a fresh init) for the next invocation; an
invocation the exited runtime never fetched goes to the fresh one, not to an error.
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import queue
import signal
import socket
import struct
import subprocess
import threading
import time
import uuid

_API = "/2018-06-01/runtime"


class Environment:
    def __init__(self, cmd: list[str], uid: int, env: dict[str, str]):
        self.cmd, self.uid, self.env = cmd, uid, env
        self.proc: subprocess.Popen | None = None
        self.pending: queue.Queue = queue.Queue()  # (request_id, payload, deadline_ms)
        self.results: dict[str, queue.Queue] = {}
        self.lock = threading.Lock()  # one invocation at a time
        self.inits = 0
        self.taken: set[str] = set()  # request ids a runtime has fetched with /next

    # -- the function process ----------------------------------------------------------
    def ensure_started(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            return
        self.kill_function()
        self.inits += 1
        print("runtime-started", flush=True)  # counted by the tests (a fresh init)
        self.proc = subprocess.Popen(self.cmd, env=self.env, cwd="/", user=self.uid, group=self.uid,
                                     extra_groups=[], start_new_session=True, stdin=subprocess.DEVNULL)

    def kill_function(self) -> None:
        """Every process of the function's uid (the whole environment is reset)."""
        for _ in range(100):
            pids = [int(p) for p in os.listdir("/proc") if p.isdigit() and _uid_of(int(p)) == self.uid]
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.01)
        if self.proc is not None:
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                pass

    # -- one invocation (from the test) ---------------------------------------------------
    def invoke(self, payload: str, timeout_s: float) -> dict:
        with self.lock:
            self.ensure_started()
            rid = str(uuid.uuid4())
            box: queue.Queue = queue.Queue()
            self.results[rid] = box
            deadline = time.time() + timeout_s
            self.pending.put((rid, payload, int(deadline * 1000)))
            try:
                while True:
                    try:
                        return box.get(timeout=0.05)
                    except queue.Empty:
                        pass
                    if time.time() > deadline:
                        self.kill_function()
                        return _error("Sandbox.Timedout", f"Task timed out after {timeout_s:.2f} seconds")
                    if self.proc.poll() is not None and rid not in self.taken:
                        # The runtime exited between invocations (e.g. it found its
                        # environment dirty): as on AWS, the invocation goes to a fresh init.
                        self.ensure_started()
                        continue
                    if self.proc.poll() is not None:
                        code = self.proc.returncode
                        self.kill_function()
                        return _error("Runtime.ExitError", f"RequestId: {rid} Error: Runtime exited "
                                                           f"with error: exit status {code}")
            finally:
                self.results.pop(rid, None)
                self.taken.discard(rid)
                _drain(self.pending)

    def complete(self, rid: str, reply: dict) -> bool:
        box = self.results.get(rid)
        if box is None:
            return False
        box.put(reply)
        return True


def _error(kind: str, message: str) -> dict:
    return {"function_error": "Unhandled", "payload": json.dumps({"errorType": kind, "errorMessage": message})}


def _drain(q: queue.Queue) -> None:
    while True:
        try:
            q.get_nowait()
        except queue.Empty:
            return


def _uid_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("Uid:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def runtime_api(env: Environment, port: int, function_arn: str) -> http.server.ThreadingHTTPServer:
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _reply(self, code: int, body: dict, headers: dict | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(code)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path != f"{_API}/invocation/next":
                return self._reply(404, {"errorType": "NotFound", "errorMessage": self.path})
            rid, payload, deadline_ms = env.pending.get()  # long poll, as on AWS
            env.taken.add(rid)
            data = payload.encode()
            self.send_response(200)
            self.send_header("Lambda-Runtime-Aws-Request-Id", rid)
            self.send_header("Lambda-Runtime-Deadline-Ms", str(deadline_ms))
            self.send_header("Lambda-Runtime-Invoked-Function-Arn", function_arn)
            self.send_header("Lambda-Runtime-Trace-Id", f"Root=1-{rid[:8]}")
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode(errors="replace")
            parts = self.path[len(_API):].strip("/").split("/")
            if parts == ["init", "error"]:
                return self._reply(202, {"status": "OK"})
            if len(parts) == 3 and parts[0] == "invocation" and parts[2] in ("response", "error"):
                fe = None if parts[2] == "response" else "Unhandled"
                if env.complete(parts[1], {"function_error": fe, "payload": body}):
                    return self._reply(202, {"status": "OK"})
                return self._reply(400, {"errorType": "InvalidRequestID", "errorMessage": parts[1]})
            return self._reply(404, {"errorType": "NotFound", "errorMessage": self.path})

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _recv_exact(conn: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("closed")
        buf += chunk
    return buf


def serve_invocations(env: Environment, path: str) -> None:
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(8)

    def one(conn: socket.socket) -> None:
        with conn:
            try:
                (n,) = struct.unpack(">I", _recv_exact(conn, 4))
                req = json.loads(_recv_exact(conn, n))
                reply = env.invoke(req["payload"], float(req["timeout_s"]))
            except Exception as e:  # noqa: BLE001 - answered to the test, which fails loudly
                reply = _error("Emulator.Error", f"{type(e).__name__}: {e}")
            data = json.dumps(reply).encode()
            conn.sendall(struct.pack(">I", len(data)) + data)

    while True:
        conn, _ = srv.accept()
        threading.Thread(target=one, args=(conn,), daemon=True).start()


def relay_s3(port: int, path: str) -> None:
    """127.0.0.1:port inside the container -> the test's unix socket (then its moto S3)."""
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", port))
    srv.listen(16)

    def pump(a: socket.socket, b: socket.socket) -> None:
        try:
            while chunk := a.recv(1 << 16):
                b.sendall(chunk)
        except OSError:
            pass
        finally:
            for s in (a, b):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def accept_loop():
        while True:
            conn, _ = srv.accept()
            up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                up.connect(path)
            except OSError:
                conn.close()
                continue
            threading.Thread(target=pump, args=(conn, up), daemon=True).start()
            threading.Thread(target=pump, args=(up, conn), daemon=True).start()

    threading.Thread(target=accept_loop, daemon=True).start()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--uid", type=int, required=True)
    ap.add_argument("--ipc", required=True)
    ap.add_argument("--api-port", type=int, default=9001)
    ap.add_argument("--s3-port", type=int, default=9002)
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE for the function")
    ap.add_argument("cmd", nargs="+")
    a = ap.parse_args()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    fenv = {k: v for k, v in os.environ.items() if k not in ("HOSTNAME",)}
    fenv.update(dict(kv.split("=", 1) for kv in a.env))
    fenv["AWS_LAMBDA_RUNTIME_API"] = f"127.0.0.1:{a.api_port}"
    env = Environment(a.cmd, a.uid, fenv)
    runtime_api(env, a.api_port, f"arn:aws:lambda:us-east-1:123456789012:function:"
                                 f"{fenv.get('AWS_LAMBDA_FUNCTION_NAME', 'f')}")
    relay_s3(a.s3_port, os.path.join(a.ipc, "s3.sock"))
    threading.Thread(target=_reap_forever, args=(env,), daemon=True).start()
    serve_invocations(env, os.path.join(a.ipc, "invoke.sock"))


def _reap_forever(env: Environment) -> None:
    """We are pid 1: orphans of the function end up here and must be reaped (all but the
    runtime process itself, which its Popen waits for)."""
    while True:
        time.sleep(0.2)
        while True:
            try:
                info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                break
            if info is None or (env.proc is not None and info.si_pid == env.proc.pid):
                break
            os.waitpid(info.si_pid, 0)


if __name__ == "__main__":
    main()
