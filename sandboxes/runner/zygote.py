"""The Python fork server ("zygote") of one sandbox slot; run as its own process.

Started by ``pyfork.ForkServer`` as ``python3 -S -B zygote.py <ctl-fd> <stack-bytes> <seccomp-hex or ->``
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
code lives in a closure, so a child's module globals hold only the exit handling below
(and ``_HELD``, which keeps the closure alive so that a child does not free it).
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
import _thread  # noqa: E402
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


# sys as the interpreter's C code reads and writes it: its dict (a module class the program
# gives sys cannot hook these lookups, as it cannot hook the interpreter's).
_SYS_DICT = type(sys).__dict__["__dict__"].__get__(sys)


def _flush_io():
    """pythonrun's flush_io before PyErr_Print: stderr then stdout, errors ignored."""
    for name in ("stderr", "stdout"):
        try:
            _SYS_DICT.get(name).flush()
        except BaseException:  # noqa: BLE001
            pass


_TRACEBACK = BaseException.__dict__["__traceback__"]  # the C slot, not a property a subclass defines
_exit_code = SystemExit.__dict__["code"].__get__


def _write_stderr(text):
    """PySys_WriteStderr: to sys.stderr, any error swallowed."""
    try:
        _SYS_DICT["stderr"].write(text)
    except BaseException:  # noqa: BLE001
        pass


def _report_uncaught(exc):
    """PyErr_Print for an exception that left __main__, minus this file's own frame.
    Returns a SystemExit the hook raised (the interpreter then exits with it), else None."""
    tb = _TRACEBACK.__get__(exc)
    tb = tb.tb_next if tb is not None else None
    _TRACEBACK.__set__(exc, tb)
    _SYS_DICT["last_type"], _SYS_DICT["last_value"], _SYS_DICT["last_traceback"] = type(exc), exc, tb
    hook = _SYS_DICT.get("excepthook", _MISSING)
    if hook is _MISSING:
        _write_stderr("sys.excepthook is missing\n")
        _SYS_DICT["__excepthook__"](type(exc), exc, tb)
        return None
    try:
        hook(type(exc), exc, tb)
    except SystemExit as hook_exit:
        return hook_exit
    except BaseException as hook_exc:  # noqa: BLE001
        htb = _TRACEBACK.__get__(hook_exc)
        htb = htb.tb_next if htb is not None else None
        _TRACEBACK.__set__(hook_exc, htb)
        _write_stderr("Error in sys.excepthook:\n")
        _SYS_DICT["__excepthook__"](type(hook_exc), hook_exc, htb)
        _write_stderr("\nOriginal exception was:\n")
        _SYS_DICT["__excepthook__"](type(exc), exc, tb)
        hook_exc = htb = None
    return None


def _leave(box, ends):
    """After __main__'s code: end as ``python3 main.py`` would. Where nothing can run at
    exit (``_ends_quietly``), flush and _exit with the status the interpreter would give;
    otherwise raise what makes the interpreter end itself (an uncaught SystemExit:
    _Py_HandleSystemExit, then Py_FinalizeEx), or return when __main__ ended normally.
    ``ends`` is [(run, hooks)]: ``run`` what the quiet end checks (the streams as the run
    began, ...), ``hooks`` whether the code names addaudithook; emptied here: when the
    interpreter tears sys down, nothing else may hold the streams (that is when unflushed
    output goes)."""
    streams, hooks = ends.pop()
    if hooks:
        streams = None  # the program may have added an audit hook: finalization calls it
    if not box:  # pythonrun's flush_io follows this module's end, as after any script
        _quiet_exit(0, streams)
        return
    exc = box.pop()
    if not isinstance(exc, SystemExit):
        _flush_io()  # pythonrun's flush_io before PyErr_Print (the hook may _exit)
    if isinstance(exc, SystemExit):
        out = exc
        # Only SystemExit itself: a subclass's `code` may be a property the interpreter calls.
        code = _exit_code(exc) if type(exc) is SystemExit else _MISSING
        if code is None or (type(code) is int and 0 <= code <= 255):
            _quiet_exit(code or 0, streams)
        code = None
    else:
        out = _report_uncaught(exc)
        if out is None and isinstance(exc, KeyboardInterrupt):
            out = KeyboardInterrupt()
            _silence_once()
        elif out is None:
            out = SystemExit(1)
            exc = None
            _quiet_exit(1, streams)
    exc = streams = None
    try:
        raise out
    finally:  # the exception in flight must not keep this frame (and what it holds) alive
        out = None


def _silence_once():
    """CPython dies of the SIGINT after finalizing: the interpreter must see an uncaught
    KeyboardInterrupt, already reported, so the next excepthook call only undoes itself."""
    names = ("last_type", "last_value", "last_traceback")
    hook, last = _SYS_DICT.get("excepthook"), tuple(_SYS_DICT.get(name) for name in names)

    def silent(*_args):
        _SYS_DICT["excepthook"] = hook
        for name, value in zip(names, last):
            _SYS_DICT[name] = value

    _SYS_DICT["excepthook"] = silent


# -- the quiet end: _exit where Py_FinalizeEx could do nothing but flush ------------------
# Py_FinalizeEx costs a forked child about 2 ms (every object it decrefs sits on a page
# shared with the zygote, so each write copies a page): most of a short test. What it does
# that a program could see is: join threads (and threading's atexit hooks), run atexit
# callbacks, flush sys.stdout/sys.stderr (status 120 on failure), and destroy objects,
# which runs __del__ methods, weakref callbacks, generators' finally blocks and the flush
# of any buffered writer still open. C-level stdio and atexit() handlers (reachable through
# ctypes) run at exit() but not at _exit(). If none of those can happen, ending by _exit
# after the same flush is indistinguishable; if any could, or anything is unusual, the
# child takes the full finalization as before. The scan reads only post-fork objects (the
# zygote's are frozen, and the zygote's own objects have no observable finalizers) and runs
# none of the program's code: no attribute lookup that a class of the program could hook
# (descriptors are called directly), no dict lookup in a dict holding a key that is not an
# exact str (whose __eq__ would run), the collector off while it looks.
_HEAPTYPE, _HAVE_GC, _TYPE_SUBCLASS = 1 << 9, 1 << 14, 1 << 31
_type_flags = type.__dict__["__flags__"].__get__
_type_mro = type.__dict__["__mro__"].__get__
_type_dict = type.__dict__["__dict__"].__get__
_MODULE = type(sys)
_module_dict = _MODULE.__dict__["__dict__"].__get__
_SYS = sys
_id = id
_getallocatedblocks, _gettrace, _getprofile = sys.getallocatedblocks, sys.gettrace, sys.getprofile
_thread_count, _atexit_count = _thread._count, atexit._ncallbacks
_GC_CALLBACKS = gc.callbacks  # the list the collector calls (rebinding the name changes nothing)
_gc_objects, _gc_isenabled, _gc_enable, _gc_disable = gc.get_objects, gc.isenabled, gc.enable, gc.disable
_gc_freeze_count = gc.get_freeze_count
_getrecursionlimit, _setrecursionlimit = sys.getrecursionlimit, sys.setrecursionlimit
# Past this many live small objects the collector's list of containers would cost memory a
# program near its limit may not have: such programs take the full finalization.
_SCAN_MAX_BLOCKS = 250_000
_END_STACK = 100  # recursion limit while this file ends a run (then the program's again)


def _gen():
    yield


async def _coro():
    pass


async def _agen():
    yield


_GENERATOR = type(_gen())
_c = _coro()
_COROUTINE = type(_c)
_c.close()
_ASYNC_GENERATOR = type(_agen())
del _c
_IO = sys.modules["_io"]
# A class the program derives from any io base may do anything in close().
_IO_BASES = (_IO._IOBase, _IO._RawIOBase, _IO._BufferedIOBase, _IO._TextIOBase)
_text_buffer = _IO.TextIOWrapper.__dict__["buffer"].__get__
_text_encoding = _IO.TextIOWrapper.__dict__["encoding"].__get__
_text_errors = _IO.TextIOWrapper.__dict__["errors"].__get__
_buffered_raw = _IO.BufferedReader.__dict__["raw"].__get__
_writer_raw = _IO.BufferedWriter.__dict__["raw"].__get__
_fileio_mode = _IO.FileIO.__dict__["mode"].__get__
_WARN_FILTERS = sys.modules["_warnings"].filters  # the list the C warnings code starts from
_WARN_DEFAULTS = tuple(_WARN_FILTERS)
_fileio_fileno = _IO.FileIO.fileno
_WEAKREF = _weakref.ReferenceType
_weakref_callback = _WEAKREF.__dict__["__callback__"].__get__
_BUILTIN_FUNCTION = type(len)
_builtin_name = _BUILTIN_FUNCTION.__dict__["__name__"].__get__
_builtin_self = _BUILTIN_FUNCTION.__dict__["__self__"].__get__
_CODE = type(_gen.__code__)
# Classes whose instances may run code when destroyed; _server adds the _ctypes types (it
# loads _ctypes for prctl; a child's ctypes objects are of those types).
_FINALIZING_BASES = _IO_BASES
# What a run child never frees: the server (its closure: ctypes handles, the seccomp
# program) and its 128 KiB of request buffers. Dropped when serve() returned in the child,
# they were freed there: the frees write to pages shared with the zygote (each one copied)
# and the freed top of the heap was handed back (brk), about 0.1-0.2 ms of a test. The
# program can reach this list only as it reaches the rest of this module (its frame's
# f_back); nothing in it is a run's secret or a way out (the child is isolated by then).
_HELD = []
# A compile child's exit status when the code object cannot travel (marshal's nesting
# limit): the runner then uses the exec path for that source, as python3 runs it.
NOT_FORKABLE, NOT_FORKABLE_MESSAGE = 125, "fork server: not forkable:"


def _quiet_exit(status, run):
    """_exit(status) after Py_FinalizeEx's flush, if nothing else could run at exit.
    Returns (to take the full finalization) otherwise, or if anything goes wrong."""
    if run is None or not _quiet_check(run):
        return
    try:
        for stream in run[0]:  # flush_std_files: stdout, then stderr (the run's own objects)
            if not stream.closed:
                stream.flush()
    except BaseException:  # noqa: BLE001 - the full finalization reports it as python3 does
        return
    posix._exit(status)


def _quiet_check(run):
    """``_ends_quietly`` with the collector off (a collection in the middle of the scan
    could run a finalizer); anything unexpected counts as not quiet."""
    collecting = _gc_isenabled()
    _gc_disable()
    try:
        return _ends_quietly(run)
    except BaseException:  # noqa: BLE001 - unusual state: the full finalization
        return False
    finally:
        if collecting:
            _gc_enable()


def run_state(streams):
    """What the quiet end compares at exit with how the run began: the run's stdout and
    stderr with the objects under them (a program can re-initialise a stream over its own
    buffer), and the collector's frozen count (a program that freezes hides objects)."""
    parts = []
    for stream in streams:
        buffer = _text_buffer(stream)
        raw = _writer_raw(buffer)
        parts.append((stream, buffer, raw, _fileio_fileno(raw), _text_encoding(stream), _text_errors(stream)))
    return streams, tuple(parts), _gc_freeze_count()


def _streams_unchanged(parts):
    for stream, buffer, raw, fd, encoding, errors in parts:
        if type(stream) is not _IO.TextIOWrapper or _text_buffer(stream) is not buffer:
            return False
        if type(buffer) is not _IO.BufferedWriter or _writer_raw(buffer) is not raw:
            return False
        if type(raw) is not _IO.FileIO or _fileio_fileno(raw) != fd:
            return False
        if _text_encoding(stream) is not encoding or _text_errors(stream) is not errors:
            return False
    return True


def _plain(mapping):
    """Every key an exact str: a lookup in it cannot call the program's __eq__."""
    for key in mapping:
        if type(key) is not str:
            return False
    return True


def _ends_quietly(run):
    streams, parts, frozen = run
    if type(_SYS) is not _MODULE or _gc_freeze_count() > frozen:
        return False  # a program that froze objects hid them from the scan (frozen ones it
        #               freed only lower the count)
    sysdict = _SYS_DICT
    if not _plain(sysdict):
        return False
    if sysdict.get("stdout") is not streams[0] or sysdict.get("stderr") is not streams[1]:
        return False  # flush_std_files would call the program's own objects
    if not _streams_unchanged(parts):
        return False
    modules = sysdict.get("modules")
    if type(modules) is not dict or not _plain(modules):
        return False
    if _thread_count() or _atexit_count() or _GC_CALLBACKS:
        return False
    if "_ctypes" in modules or "ctypes" in modules:
        return False  # C stdio buffers and C exit handlers run at exit() only
    if "threading" in modules:
        return False  # threading._shutdown runs at exit and reads the module's globals
    if _gettrace() is not None or _getprofile() is not None:
        return False  # any finalizer would call them
    # A finalizer's warning (an unclosed file or scandir, in a garbage cycle too, whose
    # members the collector may not list) is ignored by the default filters; with other
    # filters or another unraisable hook it can reach the program's code.
    if not _default_warnings(modules) or sysdict.get("unraisablehook") is not sysdict.get("__unraisablehook__"):
        return False
    if _getallocatedblocks() > _SCAN_MAX_BLOCKS:
        return False
    verdicts = {}  # id(class) -> True, False or a check of each object
    context = (streams,)
    for generation in (0, 1, 2):
        for obj in _gc_objects(generation):
            cls = type(obj)
            verdict = verdicts.get(_id(cls))
            if verdict is None:
                verdict = verdicts[_id(cls)] = _class_verdict(cls)
            if verdict is True:
                continue
            if verdict is False or not verdict(obj, context):
                return False
    return True


def _default_warnings(modules):
    """The warning filters the interpreter reads are its start-up defaults, untouched."""
    filters = _WARN_FILTERS
    if "warnings" in modules:  # _warnings then reads the Python module's attribute
        module = modules.get("warnings")
        namespace = _module_dict(module) if type(module) is _MODULE else None
        if type(namespace) is not dict or not _plain(namespace):
            return False
        filters = namespace.get("filters")
    if type(filters) is not list or len(filters) != len(_WARN_DEFAULTS):
        return False
    for entry, default in zip(filters, _WARN_DEFAULTS):
        if entry is not default:
            return False
    return True


def _class_verdict(cls):
    """Whether destroying an instance of ``cls`` (made after the fork) can have an effect a
    run shows: True (never), False (may), or a function deciding per object."""
    flags = _type_flags(cls)
    if flags & _HEAPTYPE:
        weak = False
        for base in _type_mro(cls):
            if _may_finalize(base):
                return False
            weak = weak or base is _WEAKREF
        if weak:
            return _weakref_is_quiet
    elif cls is _GENERATOR:
        return _generator_is_quiet
    elif cls is _COROUTINE or cls is _ASYNC_GENERATOR:
        return False  # closing runs code; one never awaited warns on stderr
    elif cls is _WEAKREF:
        return _weakref_is_quiet
    elif cls is _weakref.ProxyType or cls is _weakref.CallableProxyType:
        return False
    elif cls is _IO.TextIOWrapper or cls is _IO.BufferedWriter or cls is _IO.BufferedRandom \
            or cls is _IO.BufferedRWPair or cls is _IO.BufferedReader:
        return _stream_is_quiet
    if flags & _TYPE_SUBCLASS:
        return _class_is_quiet
    return True


def _may_finalize(base):
    """A class in an MRO whose instances may run code or write when destroyed: one with a
    __del__, an io base (close() may be the program's), a _ctypes type; a class dict with a
    key that is not an exact str counts too (the lookup could run the program's __eq__)."""
    namespace = _type_dict(base)
    if not _plain(namespace) or "__del__" in namespace:
        return True
    for other in _FINALIZING_BASES:  # by identity: a metaclass may define __eq__
        if base is other:
            return True
    return False


def _names_audit_hooks(code):
    """Whether the program names sys.addaudithook (hooks cannot be listed; the interpreter
    calls every one when it clears them at exit). Code that hides the name only loses what
    its own hook would print at exit. Iterative: code objects may nest deeper than the
    recursion limit allows."""
    stack = [code]
    while stack:
        code = stack.pop()
        if "addaudithook" in code.co_names:
            return True
        for const in code.co_consts:
            if type(const) is str and const == "addaudithook":
                return True
            if type(const) is _CODE:
                stack.append(const)
    return False


def _generator_is_quiet(gen, _context):
    """Closing a suspended generator throws GeneratorExit into it: silent only when its code
    has no handler (finally, with, except) and it delegates to no other iterator."""
    return not gen.gi_suspended or (not gen.gi_code.co_exceptiontable and gen.gi_yieldfrom is None)


def _weakref_is_quiet(ref, _context):
    """A weakref's callback runs when its referent dies: silent only with none or with the
    ABC registries' own (_abc's _destroy). Python callbacks, even the weak containers' own,
    reach objects the program can replace (the container's data)."""
    callback = _weakref_callback(ref)
    if callback is None:
        return True
    return type(callback) is _BUILTIN_FUNCTION and _builtin_name(callback) == "_destroy" \
        and type(_builtin_self(callback)) is _WEAKREF


def _stream_is_quiet(stream, context):
    """A buffered writer flushes when destroyed: only the run's own stdout/stderr (flushed
    here, with their buffers) and readers over a plain read-only file (open(0)) are silent."""
    for own in context[0]:
        if stream is own or stream is _text_buffer(own):
            return True
    if type(stream) is _IO.TextIOWrapper:
        stream = _text_buffer(stream)
    if type(stream) is not _IO.BufferedReader:
        return False
    raw = _buffered_raw(stream)
    return type(raw) is _IO.FileIO and _fileio_mode(raw) == "rb"


def _class_is_quiet(cls, _context):
    """A class made after the fork: none with a __del__ (or another finalizing base), whether
    or not an instance is alive (the collector does not list instances of classes without GC
    support, and __class__ can be set on objects the scan does not see)."""
    for base in _type_mro(cls):
        if _may_finalize(base):
            return False
    return True


# -- the server: a closure, so that none of it is a name a child can look up -----------------
def _server():
    import _socket
    import ctypes
    import resource

    libc = ctypes.CDLL(None, use_errno=True)
    global _FINALIZING_BASES  # a child's ctypes objects are _ctypes types: C code at exit
    _FINALIZING_BASES = _IO_BASES + (ctypes._CFuncPtr, ctypes._SimpleCData, ctypes.Structure, ctypes.Union,
                                     ctypes.Array, ctypes._Pointer)
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
    own_filter = [None]  # the filter the zygote runs under (its children inherit it)

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
        if req["seccomp"] != own_filter[0]:  # (the zygote's own filter: in force since the fork)
            prctl(PR_SET_NO_NEW_PRIVS, 1, "prctl(NO_NEW_PRIVS)")
        prctl(PR_SET_PDEATHSIG, _signal.SIGKILL, "prctl(PDEATHSIG)")
        if posix.getppid() != zygote_pid:  # the zygote died before PDEATHSIG was armed
            posix._exit(126)
        # A uid change left the child non-dumpable (its /proc files root's); an exec'd run
        # is dumpable again, so match it. The child holds nothing the run may not see.
        prctl(PR_SET_DUMPABLE, 1, "prctl(DUMPABLE)")
        if req["seccomp"] != own_filter[0]:
            install_seccomp(req["seccomp"])
        for res, soft, hard in req["rlimits"]:
            resource.setrlimit(res, (soft, hard))

    def read_all(fd):
        """The code object's sealed memfd, read in one call of its size (+1 to see EOF)."""
        chunks = []
        size = posix.fstat(fd).st_size + 1
        while True:
            chunk = posix.read(fd, size)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)

    def with_filename(code, filename):
        """``code`` and every code object nested in it named ``filename``. Iterative: code
        may nest deeper than the recursion limit (python3 runs 1,500 nested lambdas)."""
        done = {}  # id(code) -> renamed (the originals stay alive in ``order``)
        order, stack = [], [code]
        while stack:  # parents before children; renamed below in reverse (children first)
            item = stack.pop()
            order.append(item)
            stack.extend(c for c in item.co_consts if type(c) is _CODE)
        for item in reversed(order):
            consts = tuple(done[id(c)] if type(c) is _CODE else c for c in item.co_consts)
            done[id(item)] = item.replace(co_filename=filename, co_consts=consts)
        return done[id(code)]

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
        try:
            data = marshal.dumps(code)
        except ValueError as exc:  # nested deeper than marshal goes: python3 itself runs it
            sys.stderr.write("%s %s\n" % (NOT_FORKABLE_MESSAGE, exc))
            sys.stderr.flush()
            posix._exit(NOT_FORKABLE)
        view = memoryview(data)
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
            isolate(req, report, code_fd, zygote_pid)
            # What the zygote and the isolation made since the zygote's own freeze (the run's
            # streams, the seccomp program) joins the permanent generation too: the quiet
            # end's scan then sees only what this run made. __main__ is made after it (a
            # frozen __main__ would be torn down later than python3 tears it down).
            gc.freeze()
            main = prepare_main(req)
            if req["op"] == "compile":
                posix.close(code_fd)
                posix.close(report)
                compile_main()
            code = with_filename(marshal.loads(read_all(code_fd)), req["path"])
            posix.close(code_fd)
            for name in [m for m in sys.modules if m not in _BASE_MODULES]:
                del sys.modules[name]  # what the zygote still needs there (resource)
            posix.close(report)  # EOF there: set-up done, the submission's code runs next
            return code, main.__dict__, run_state((sys.stdout, sys.stderr))
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
        if len(sys.argv) > 3 and sys.argv[3] != "-":
            # The runs' filter, on the zygote itself: every child is under it from its fork
            # on, and none compiles its own copy (the kernel builds a filter at each
            # install). Nothing the zygote or a child's set-up calls is denied by it.
            own_filter[0] = bytes.fromhex(sys.argv[3])
            prctl(PR_SET_NO_NEW_PRIVS, 1, "prctl(NO_NEW_PRIVS)")  # (what lets it install one)
            install_seccomp(own_filter[0])
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
        _HELD.append((buf, view, zeros))
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
    serve = _server()
    _HELD.append(serve)
    return serve()


if __name__ == "__main__":  # (tests import this file to check _ends_quietly)
    _code, _globals, _ends = _setup()
    _ends = [(_ends, _names_audit_hooks(_code))]
    # The submission's globals must be referenced by its __main__ alone (and no exception may
    # be held by this module) when the interpreter tears __main__ down.
    _left = []
    try:
        exec(_code, _globals)
    except BaseException as _exc:  # noqa: BLE001
        _left.append(_exc)
        del _exc
    del _code, _globals
    # This file's end-of-run calls need stack room that a program may have taken away
    # (sys.setrecursionlimit(3) as its last line: python3 still ends normally).
    _limit = _getrecursionlimit()
    if _limit < _END_STACK:
        _setrecursionlimit(_END_STACK)
    try:
        if _left or (_gettrace() is None and _getprofile() is None):
            _leave(_left, _ends)
        else:  # a trace or profile function would see that call: the module just ends
            del _ends
    finally:  # back to the program's limit for the interpreter's own end, where it fits
        if _limit < _END_STACK:
            try:
                _setrecursionlimit(_limit)
            except RecursionError:  # below this frame's depth: finalizers see _END_STACK
                pass
