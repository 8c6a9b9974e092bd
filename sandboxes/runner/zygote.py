"""The Python fork server ("zygote") of one sandbox slot; run as its own process.

Started by ``pyfork.ForkServer`` as ``python3 -S -B zygote.py <ctl-fd> <stack-bytes>``
with the run environment (PROTOCOL.md "Python fork server"). It holds an initialised
interpreter and, per request, forks a child that takes on the run's isolation (cgroup,
uid/gid, no_new_privs, seccomp, rlimits) BEFORE it reads a byte of the submission, then
runs the submission's code object as ``python3 -S -B <box>/main.py`` would. The zygote
never reads submission data: the code object and stdin travel as fds only the child reads.

Before each fork the zygote puts the run's stdio on fds 0-2; the request itself (paths,
argv, environment) is decoded only in the child, from a buffer the zygote zeroes after the
fork, so the zygote keeps nothing of a run for later children to read. The zygote reports ``P <pid>`` after the fork and
``S <status> <utime_us> <stime_us> <maxrss_kb>`` once it reaped the child; the runner
watches CPU/wall/output and kills the run (its cgroup) as for any other run.

Only builtin/stdlib modules. What the server imports beyond a fresh ``python3 -S``'s set
is removed from ``sys.modules`` (the server holds its own references), and the server's
code lives in a closure, so a child's module globals hold only the exit handling below.
A child ends through the interpreter's own finalization, as ``python3 main.py`` does.
"""

import sys

_BASE_MODULES = frozenset(sys.modules)
_BASE_IMPORTER_CACHE = dict(sys.path_importer_cache)

import _signal  # noqa: E402  (these five are in a fresh interpreter's set)
import _weakref  # noqa: E402
import io  # noqa: E402
import marshal  # noqa: E402
import posix  # noqa: E402
import gc  # noqa: E402  (builtins; dropped from sys.modules below)
import atexit  # noqa: E402


# -- the end of a run: the only functions a child's module globals keep ----------------------
# A child ends through the interpreter's own finalization (Py_FinalizeEx: threads, atexit,
# flush, every module's teardown incl. builtins/sys, the collector), exactly as a fresh
# ``python3 main.py`` does: output written by __del__ of objects other modules keep, by
# generators' finally blocks or by cycles must not be lost. This file only does, in Python,
# what PyErr_Print does for an exception that left __main__ (to drop its own frame from the
# traceback), then leaves by an uncaught SystemExit so that the interpreter exits and
# finalizes itself; no code of this file runs during that teardown.
_MISSING = object()
# The submission may rebind these in builtins; the code below runs after it, so it keeps
# the originals as this module's globals (found before builtins).
getattr, isinstance, type, BaseException, SystemExit, KeyboardInterrupt = (  # noqa: A001
    getattr, isinstance, type, BaseException, SystemExit, KeyboardInterrupt)


def _flush_io():
    """pythonrun's flush_io before PyErr_Print: stderr then stdout, errors ignored."""
    for name in ("stderr", "stdout"):
        try:
            getattr(sys, name).flush()
        except BaseException:  # noqa: BLE001
            pass


def _report_uncaught(exc):
    """PyErr_Print for an exception that left __main__, minus this file's own frame.
    Returns a SystemExit the hook raised (the interpreter then exits with it), else None."""
    tb = exc.__traceback__.tb_next if exc.__traceback__ is not None else None
    exc.__traceback__ = tb
    sys.last_type, sys.last_value, sys.last_traceback = type(exc), exc, tb
    hook = getattr(sys, "excepthook", _MISSING)
    if hook is _MISSING:
        sys.stderr.write("sys.excepthook is missing\n")
        sys.__excepthook__(type(exc), exc, tb)
        return None
    try:
        hook(type(exc), exc, tb)
    except SystemExit as hook_exit:
        return hook_exit
    except BaseException as hook_exc:  # noqa: BLE001
        htb = hook_exc.__traceback__.tb_next if hook_exc.__traceback__ is not None else None
        hook_exc.__traceback__ = htb
        sys.stderr.write("Error in sys.excepthook:\n")
        sys.__excepthook__(type(hook_exc), hook_exc, htb)
        sys.stderr.write("\nOriginal exception was:\n")
        sys.__excepthook__(type(exc), exc, tb)
        hook_exc = htb = None
    return None


def _leave(box):
    """After __main__'s code: raise what makes the interpreter end as ``python3 main.py``
    would (an uncaught SystemExit: _Py_HandleSystemExit, then Py_FinalizeEx), or return
    when __main__ ended normally (the interpreter then finalizes as after any script)."""
    _flush_io()
    if not box:
        return
    exc = box.pop()
    if isinstance(exc, SystemExit):
        out = exc
    else:
        out = _report_uncaught(exc)
        if out is None and isinstance(exc, KeyboardInterrupt):
            out = KeyboardInterrupt()
            _silence_once()
        elif out is None:
            out = SystemExit(1)
    exc = None
    try:
        raise out
    finally:  # the exception in flight must not keep this frame (and what it holds) alive
        out = None


def _silence_once():
    """CPython dies of the SIGINT after finalizing: the interpreter must see an uncaught
    KeyboardInterrupt, already reported, so the next excepthook call only undoes itself."""
    hook, last = sys.excepthook, (sys.last_type, sys.last_value, sys.last_traceback)

    def silent(*_args):
        sys.excepthook = hook
        sys.last_type, sys.last_value, sys.last_traceback = last

    sys.excepthook = silent


# -- the server: a closure, so that none of it is a name a child can look up -----------------
def _server():
    import _socket
    import ctypes
    import resource

    libc = ctypes.CDLL(None, use_errno=True)
    PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP = 1, 4, 38, 22
    SECCOMP_MODE_FILTER = 2
    stdio_coding = [(s.encoding, s.errors) for s in (sys.stdin, sys.stdout, sys.stderr)]
    own_stdio = [posix.dup(fd) for fd in (0, 1, 2)]  # put back after each fork
    for fd in own_stdio:
        posix.set_inheritable(fd, False)

    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    class CapHeader(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class CapData(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]

    def prctl(option, arg, what):
        if libc.prctl(option, arg, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), what)

    def clear_inheritable_caps():
        """As process._clear_inheritable_caps, once here: children inherit an empty set."""
        hdr = CapHeader(0x20080522, 0)
        data = (CapData * 2)()
        if libc.capget(ctypes.byref(hdr), data) == 0 and (data[0].inheritable or data[1].inheritable):
            for d in data:
                d.inheritable = 0
            libc.capset(ctypes.byref(hdr), data)

    seccomp_cache = {}

    def prepare_seccomp(filt):
        """The filter's ctypes program, built here once (children only call prctl)."""
        if filt and filt not in seccomp_cache:
            seccomp_cache.clear()
            buf = ctypes.create_string_buffer(filt, len(filt))
            seccomp_cache[filt] = (buf, Fprog(len(filt) // 8, ctypes.cast(buf, ctypes.c_void_p)))

    def install_seccomp(filt):
        if filt:
            prepare_seccomp(filt)
            _buf, prog = seccomp_cache[filt]
            if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")

    def new_stdio():
        """sys.stdin/stdout/stderr as the interpreter's start-up makes them (create_stdio),
        on fds 0-2, which hold the run's stdin and pipes at this point."""
        made = []
        for (name, write), (encoding, errors), fd in zip(
                (("<stdin>", False), ("<stdout>", True), ("<stderr>", True)), stdio_coding, (0, 1, 2)):
            buf = io.open(fd, "wb" if write else "rb", -1, None, None, None, False)
            buf.raw.name = name
            line_buffering = buf.raw.isatty() or fd == 2
            stream = io.TextIOWrapper(buf, encoding, errors, "\n", line_buffering, False)
            stream.mode = "w" if write else "r"
            made.append(stream)
        sys.stdin = sys.__stdin__ = made[0]
        sys.stdout = sys.__stdout__ = made[1]
        sys.stderr = sys.__stderr__ = made[2]

    def prepare_main(req):
        """What ``python3 -S -B <path>`` has set up before its first line (no submission
        data: paths, argv and the environment of the run). In the child only: the zygote
        keeps no run's paths or environment (setenv() never frees what it replaced)."""
        path, env = req["path"], req["env"]
        for key in [k for k in posix.environ if k.decode("utf-8", "surrogateescape") not in env]:
            posix.unsetenv(key)
            del posix.environ[key]
        for key, value in env.items():
            bkey, bval = key.encode(), value.encode()
            if posix.environ.get(bkey) != bval:
                posix.putenv(key, value)
                posix.environ[bkey] = bval
        sys.argv = [path, *req["args"]]
        sys.orig_argv = [sys.executable, "-S", "-B", path, *req["args"]]
        sys.path[0] = req["cwd"]
        main = type(sys)("__main__")
        main.__dict__.update({
            "__loader__": sys.modules["_frozen_importlib_external"].SourceFileLoader("__main__", path),
            "__spec__": None, "__annotations__": {}, "__builtins__": sys.modules["builtins"],
            "__file__": path, "__cached__": None})
        sys.modules["__main__"] = main
        return main

    def close_fds_except(keep):
        low = 3
        for fd in sorted(keep):
            if fd >= low:
                posix.closerange(low, fd)
                low = fd + 1
        posix.closerange(low, 1 << 16)

    def isolate(req, report, code_fd, zygote_pid):
        """In the fresh child, as root: the run's isolation, in the exec path's order."""
        posix.setsid()  # own session and process group: killpg reaches all it starts
        close_fds_except((report, code_fd))
        posix.chdir(req["cwd"])
        for path in req["procs"]:  # before setuid: the run uid may not write these files
            fd = posix.open(path, posix.O_WRONLY)
            posix.write(fd, b"0")
            posix.close(fd)
        if req["uid"] is not None:
            posix.setgroups([])
            posix.setgid(req["gid"])
            posix.setuid(req["uid"])  # from root: drops every capability too
        prctl(PR_SET_NO_NEW_PRIVS, 1, "prctl(NO_NEW_PRIVS)")
        prctl(PR_SET_PDEATHSIG, _signal.SIGKILL, "prctl(PDEATHSIG)")
        if posix.getppid() != zygote_pid:  # the zygote died before PDEATHSIG was armed
            posix._exit(126)
        # A uid change left the child non-dumpable (its /proc files root's); an exec'd run
        # is dumpable again, so match it. The child holds nothing the run may not see.
        prctl(PR_SET_DUMPABLE, 1, "prctl(DUMPABLE)")
        install_seccomp(req["seccomp"])
        for res, soft, hard in req["rlimits"]:
            resource.setrlimit(res, (soft, hard))

    def read_all(fd):
        chunks = []
        while True:
            chunk = posix.read(fd, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)

    def with_filename(code, filename):
        consts = tuple(with_filename(c, filename) if isinstance(c, type(code)) else c for c in code.co_consts)
        return code.replace(co_filename=filename, co_consts=consts)

    def compile_main():
        """The compile step: source -> marshalled code object on fd 1; errors as py_compile."""
        with open("main.py", "rb") as f:
            source = f.read()
        try:
            code = compile(source, "main.py", "exec", dont_inherit=True)
        except Exception as exc:  # noqa: BLE001 - exactly what `python3 -m py_compile` reports
            import py_compile
            sys.stderr.write("%s\n" % py_compile.PyCompileError(type(exc), exc, "main.py").msg)
            sys.stderr.flush()
            posix._exit(1)
        view = memoryview(marshal.dumps(code))
        while view:
            view = view[posix.write(1, view):]
        posix._exit(0)

    def child(raw, fds, sock, zygote_pid):
        """Returns (code, globals) to run, only in a run child; exits otherwise. ``raw`` is
        the request as the runner sent it, decoded only here (never in the zygote)."""
        report = fds[3] if len(fds) == 5 else 2
        try:
            if len(fds) != 5:
                raise ValueError("expected 5 fds, got %d" % len(fds))
            sock.detach()  # its fd closes below; the object must never close a reused number
            req = marshal.loads(raw)
            raw = None
            code_fd = fds[4]
            main = prepare_main(req)
            isolate(req, report, code_fd, zygote_pid)
            if req["op"] == "compile":
                posix.close(code_fd)
                posix.close(report)
                compile_main()
            code = marshal.loads(read_all(code_fd))
            posix.close(code_fd)
            for name in [m for m in sys.modules if m not in _BASE_MODULES]:
                del sys.modules[name]  # what the zygote still needs there (resource)
            posix.close(report)  # EOF there: set-up done, the submission's code runs next
            return with_filename(code, req["path"]), main.__dict__
        except BaseException as exc:  # noqa: BLE001 - report anything, then leave
            try:
                posix.write(report, ("E fork server child: %s: %s\n" % (type(exc).__name__, exc)).encode()[:1000])
            finally:
                posix._exit(127)

    def serve():
        """The zygote's loop; returns (code, globals) only in a forked run child."""
        prctl(PR_SET_DUMPABLE, 0, "prctl(DUMPABLE)")  # /proc/<zygote>/* root-only for everyone
        clear_inheritable_caps()
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_SEQPACKET, 0, int(sys.argv[1]))
        me = posix.getpid()
        fd_space = _socket.CMSG_SPACE(8 * 4)
        # The child's sys.modules: a fresh interpreter's, plus resource (posix.wait4 imports
        # it on every call; each child drops it).
        for name in [m for m in sys.modules if m not in _BASE_MODULES and m != "resource"]:
            del sys.modules[name]
        sys.path_importer_cache.clear()
        sys.path_importer_cache.update(_BASE_IMPORTER_CACHE)
        # Everything alive now goes to the collector's permanent generation: a child's
        # collections then skip (and do not copy-on-write) the zygote's pages.
        # Requests land in one buffer, zeroed after each fork: no run's paths stay in the
        # zygote's memory for a later child to read.
        buf = bytearray(1 << 16)
        view = memoryview(buf)
        zeros = memoryview(bytes(1 << 16))
        gc.freeze()
        sock.send(b"READY %d" % me)
        while True:
            size, anc, _flags, _addr = sock.recvmsg_into([view], fd_space)
            fds = []
            for level, kind, data in anc:
                if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
                    fds += [int.from_bytes(data[i:i + 4], sys.byteorder) for i in range(0, len(data) - 3, 4)]
            if not size:
                posix._exit(0)  # the runner is gone
            want_pid = buf[0] == 0x50  # b"P": no cgroup, the runner needs the pid while it runs
            if len(fds) == 5:
                for fd in (0, 1, 2):
                    posix.dup2(fds[fd], fd)
                new_stdio()
            pid = posix.fork()
            if pid == 0:
                return child(view[1:size], fds, sock, me)
            view[:size] = zeros[:size]
            for fd in (0, 1, 2):  # never hold a run's pipes open past the fork
                posix.dup2(own_stdio[fd], fd)
            for fd in fds:
                posix.close(fd)
            if want_pid:
                sock.send(b"P %d" % pid)
            _, status, ru = posix.wait4(pid, 0)
            sock.send(b"S %d %d %d %d %d" % (status, int(ru.ru_utime * 1e6), int(ru.ru_stime * 1e6),
                                             ru.ru_maxrss, pid))

    return serve


def _setup():
    """First start: the exec path's stack rlimit must be in place before glibc sizes
    thread stacks from it, so set it and re-exec once. Then serve (returns in a child)."""
    import resource
    want = int(sys.argv[2])
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    if want > 0 and soft != want:
        resource.setrlimit(resource.RLIMIT_STACK, (want, hard if hard == resource.RLIM_INFINITY or hard >= want else want))
        posix.execv(sys.executable, [sys.executable, "-S", "-B", *sys.argv])
    return _server()()


_code, _globals = _setup()
# The submission's globals must be referenced by its __main__ alone (and no exception may
# be held by this module) when the interpreter tears __main__ down.
_left = []
try:
    exec(_code, _globals)
except BaseException as _exc:  # noqa: BLE001
    _left.append(_exc)
    del _exc
del _code, _globals
_leave(_left)
