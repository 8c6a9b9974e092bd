# The trusted side of a function-call test: the sandbox runs this as the program.
#
# Runs after the codec (programs.py puts a preamble and codec.py's text first). It makes
# itself non-dumpable, starts the candidate's interpreter (CALLEE_SOURCE, defined by
# programs.py) with nothing but two pipes, runs the jury's test code here against proxies
# that call through those pipes, and writes its verdict to its own stdout, which the
# candidate never holds. argv: ENTRY ENTRY_CLASS|- KIND CPU_LIMIT_S in-place|copy. The test code arrives
# on stdin (never as a file); setup and prompt code as files it reads and unlinks before the
# candidate exists.
import binascii as _binascii
import builtins as _builtins
import ctypes as _ctypes
import resource as _resource  # os.wait4 imports it lazily: imported before the candidate starts
import fcntl as _fcntl
import os as _os
import select as _select
import signal as _signal
import sys as _sys
import time as _time
import zlib as _zlib

_EXIT_AC, _EXIT_VERDICT = 0, 100
_CPU_TICK_MS = 50
# Arguments this long are sent once and then by reference while unchanged (a test calling
# search(nums, x) 500 times with a 10**6-element list must not copy it 500 times).
_CACHE_MIN = 256
_CACHEABLE = {list, tuple, dict, set, frozenset, str, bytes}
_IMMUTABLE = {frozenset, str, bytes}
# The CPU allowance (seconds): per call, per value decoded one by one, per value in a packed
# array, per element compared when checking a cached argument for in-place changes. Measured
# on the callee's code with some margin (bench/function_judging.py shows the effect).
_CALL_S, _ITEM_S, _PACKED_S, _CHECK_S = 1e-4, 1e-6, 5e-8, 1e-8
_CLK_TCK = _os.sysconf("SC_CLK_TCK")


def _emit(verdict, message, cpu_s=0.0, maxrss_kb=0, limit_s=0.0):
    """Write the one verdict record and leave (the only way this process ends normally).

    The record: (verdict, message, the candidate's CPU seconds, its peak RSS in KiB, this
    process's own CPU seconds, the candidate's CPU limit with its allowance). The last two
    let the service charge the candidate for processes it started and never reaped (run
    CPU less ours), which neither /proc/<pid>/stat nor its rusage include."""
    own = _resource.getrusage(_resource.RUSAGE_SELF)
    data = encode((verdict, message[-2000:], float(cpu_s), int(maxrss_kb),
                   float(own.ru_utime + own.ru_stime), float(limit_s)))
    view = memoryview(data)
    while view:
        view = view[_os.write(1, view):]
    _os._exit(_EXIT_AC if verdict == "AC" else _EXIT_VERDICT)


class _Abort(BaseException):
    """The channel is broken (the candidate died, lied, ran out of time): the test is over
    whatever the jury code catches. A BaseException so `except Exception` does not swallow it."""


class _JuryProblem(Exception):
    """The test itself cannot be run across the boundary (an internal error, not the candidate's)."""


class _CandidateException(Exception):
    """A non-builtin exception the candidate raised, re-raised here by name."""


class _Channel:
    def __init__(self, pid, req_w, rep_r, cpu_limit, in_place=False):
        self.pid, self.req_w, self.rep_r, self.cpu_limit = pid, req_w, rep_r, cpu_limit
        # Whether the candidate's in-place changes to its arguments reach the jury's objects.
        # Off unless the problem says its tests check arguments: a red team rewrote the list
        # the jury validates its answer against (two-sum: nums[:] = [target, 0]; return 0, 1).
        self.in_place = in_place
        self.failure = None        # (verdict, message): decides the test once set
        self.replies = 0           # replies decoded so far: values the jury may send back
        self.status = None         # wait status once reaped
        self.cpu_s = 0.0           # the candidate's CPU time once reaped
        self.maxrss_kb = 0
        # CPU the boundary itself costs inside the candidate's process (decoding what we
        # send, checking arguments for in-place changes), granted on top of the limit.
        # Computed here from what we send, never from anything the candidate reports.
        self.allowance = 0.0
        self.cache = {}            # id(arg) -> [arg, fingerprint, ref, mutable elements]
        self.next_ref = 0
        self.poller = _select.poll()
        self.poller.register(rep_r, _select.POLLIN)
        # Requests are written without blocking: a candidate that stops reading them (its
        # request fd swapped for a pipe that never speaks) would otherwise hold this process
        # in write() past every budget, and the slot with it, once a request outgrows the pipe.
        _os.set_blocking(req_w, False)
        self.out_poller = _select.poll()
        self.out_poller.register(req_w, _select.POLLOUT)
        # Wall time spent waiting for the candidate's replies, and its budget: the same rule
        # as a stdio program's (3x the CPU limit, at least 2 s more). Without it a candidate
        # that sleeps or blocks held its slot for the whole run's wall limit (15 s a test at
        # 2 s: a hostile review pushed correct submissions of a batch past its deadline).
        self.waited = 0.0
        self.wall_limit = max(3 * cpu_limit, cpu_limit + 2)  # = function.harness_wait_s

    # -- the candidate's process -------------------------------------------------------
    def limit(self):
        return self.cpu_limit + self.allowance

    def over_limit(self):
        """Has the candidate's process used more CPU than its limit? (Polled while waiting.)"""
        try:
            with open(f"/proc/{self.pid}/stat", "rb") as f:
                rest = f.read().rsplit(b")", 1)[1].split()
            used = (int(rest[11]) + int(rest[12])) / _CLK_TCK
        except (OSError, IndexError, ValueError):
            return False
        return used > self.limit()

    def reap(self, kill=True):
        if self.status is not None:
            return self.status
        if kill:
            try:
                _os.kill(self.pid, _signal.SIGKILL)
            except ProcessLookupError:
                pass
        _, self.status, ru = _os.wait4(self.pid, 0)
        self.cpu_s = ru.ru_utime + ru.ru_stime
        self.maxrss_kb = ru.ru_maxrss
        return self.status

    def fail(self, verdict, message):
        if self.failure is None:
            self.failure = (verdict, message)
        self.reap()
        raise _Abort()

    def gone(self):
        """EOF on the reply pipe: say why the candidate stopped answering."""
        status = self.reap()
        if _os.WIFSIGNALED(status) and _os.WTERMSIG(status) == _signal.SIGXCPU:
            self.fail("TLE", f"CPU time limit {self.cpu_limit:g} s exceeded")
        if _os.WIFSIGNALED(status):
            self.fail("RE", f"the candidate's process was killed by signal {_os.WTERMSIG(status)}")
        self.fail("RE", f"the candidate's process exited (status {_os.WEXITSTATUS(status)}) "
                        "before answering")

    # -- frames ------------------------------------------------------------------------
    def send(self, msg):
        stats = {}
        try:
            data = encode(msg, stats=stats)
        except TooLarge as exc:
            if self.replies:
                # Over a size/depth/item limit once the candidate has answered: what it
                # returned is being sent back (r = f(f(x)), round trips). Its value, its
                # fault: a review turned WA into IE with a 9,998-deep list on rotate-matrix.
                self.fail("RE", f"a value the candidate returned cannot be sent back to it: {exc}")
            raise _JuryProblem(f"the test passes a value that cannot cross to the candidate: {exc}")
        except CodecError as exc:
            raise _JuryProblem(f"the test passes a value that cannot cross to the candidate: {exc}")
        # Decoding it costs the candidate's process this much CPU: granted, not charged.
        self.allowance += _ITEM_S * stats["items"] + _PACKED_S * stats["packed"]
        view = memoryview(_U32.pack(len(data)) + data)
        try:
            while view:
                try:
                    view = view[_os.write(self.req_w, view):]
                except BlockingIOError:  # the pipe is full: the candidate has not read yet
                    self._wait(self.out_poller)
        except OSError:  # EPIPE: it closed its end or died
            self.gone()

    def _wait(self, poller):
        """Wait up to one tick for the candidate's pipe. The wait counts against the wall
        budget, and both limits are checked whenever the candidate keeps us waiting."""
        t0 = _time.monotonic()
        ready = poller.poll(_CPU_TICK_MS)
        self.waited += _time.monotonic() - t0
        if not ready:
            if self.over_limit():
                self.fail("TLE", f"CPU time limit {self.cpu_limit:g} s exceeded")
            if self.waited > self.wall_limit:
                self.fail("TLE", f"wall time limit {self.wall_limit:g} s exceeded "
                                 "(the candidate did not answer or did not read: blocked, "
                                 "sleeping or stopped)")
        return bool(ready)

    def _read(self, n):
        buf = bytearray()
        while len(buf) < n:
            if not self._wait(self.poller):
                continue
            try:
                chunk = _os.read(self.rep_r, min(n - len(buf), 1 << 20))
            except OSError:
                chunk = b""
            if not chunk:
                self.gone()
            buf += chunk
        return bytes(buf)

    def recv(self):
        n = _U32.unpack(self._read(4))[0]
        if n > frame_limit():
            self.fail("RE", f"the candidate sent a reply of {n} bytes (limit {frame_limit()})")
        data = self._read(n)
        try:
            msg = decode(data)
        except MemoryError:
            self.fail("MLE", "the candidate's reply does not fit in memory")
        except CodecError as exc:
            self.fail("RE", f"malformed reply from the candidate's process: {exc}")
        if type(msg) is not tuple or not msg or type(msg[0]) is not str:
            self.fail("RE", "malformed reply from the candidate's process")
        self.replies += 1
        return msg

    # -- one call ----------------------------------------------------------------------
    def _arg(self, value):
        """How one argument travels: by value, or once and then by reference while unchanged."""
        t = type(value)
        if t not in _CACHEABLE or len(value) < _CACHE_MIN:
            return ("v", value)
        entry = self.cache.get(id(value))
        if entry is not None and entry[0] is value and (t in _IMMUTABLE or not changed(value, entry[1])):
            self.allowance += _CHECK_S * entry[3]
            return ("r", entry[2])
        self.next_ref += 1
        ref = self.next_ref
        mutable = 0 if t in _IMMUTABLE else _elements(value)
        self.cache[id(value)] = [value, fingerprint(value), ref, mutable]
        return ("n", ref, value)

    def call(self, name, args, kwargs):
        if self.failure is not None:
            raise _Abort()
        self.allowance += _CALL_S
        wire_args = tuple(self._arg(a) for a in args)
        wire_kwargs = {k: self._arg(a) for k, a in kwargs.items()}
        self.send(("call", name, wire_args, wire_kwargs))
        reply = self.recv()
        tag = reply[0]
        if tag == "ok" and len(reply) == 3 and type(reply[2]) is dict:
            if self.in_place:
                _apply_mutations(args, kwargs, reply[2], self.cache)
            else:
                _forget_mutated(args, kwargs, reply[2], self.cache)
            return reply[1]
        if tag == "raised" and len(reply) == 4 and all(type(x) is str for x in reply[1:]):
            raise self._exception(reply[1], reply[2], reply[3])
        self.unexpected(reply)

    def unexpected(self, reply):
        tag = reply[0]
        text = [x for x in reply[1:] if type(x) is str]
        detail = text[-1] if text else ""
        if tag == "memory":
            self.fail("MLE", "the candidate ran out of memory (MemoryError)\n" + detail)
        if tag == "exit":
            self.fail("RE", f"the candidate raised {text[0] if text else '?'}\n" + detail)
        if tag == "unsupported":
            self.fail("WA", f"the candidate returned a {detail} object; only plain data "
                            "(None, bool, int, float, complex, str, bytes, list, tuple, dict, set, "
                            "frozenset) can be returned")
        if tag == "toolarge":
            self.fail("RE", f"the candidate's return value is too large: {detail}")
        if tag == "ce":
            self.fail("CE", "candidate does not compile:\n" + detail)
        if tag == "missing":
            self.fail("RE", detail)
        self.fail("RE", "malformed reply from the candidate's process")

    def _exception(self, name, message, tb):
        cls = getattr(_builtins, name, None)
        if cls is StopIteration or cls is StopAsyncIteration:
            # Raised into the jury's code it would end the iteration it was called from:
            # `all(map(lambda c: f(*c[0]) == c[1], cases))` then passes on no cases at all
            # (a hostile review's note). The candidate's exception: RE, whatever catches it.
            self.fail("RE", f"the candidate raised {name}: {message}\n{tb}")
        exc = None
        if isinstance(cls, type) and issubclass(cls, Exception):
            try:
                exc = cls(message)
            except Exception:
                exc = None
        if exc is None:
            exc = _CandidateException(f"{name}: {message}")
        # Marks the object itself: an id() would be reused once jury code let the exception
        # go, and a later AssertionError at the same address would read as the candidate's.
        exc._candidate_traceback = tb
        return exc


def _elements(value):
    """Values the candidate's side compares when checking ``value`` for in-place changes."""
    count, todo = 0, [value]
    while todo:
        v = todo.pop()
        count += len(v)
        if type(v) is dict:
            v = v.values()
        if not _NESTED.isdisjoint(map(type, v)):  # C-speed test first: most are flat
            todo.extend(x for x in v if type(x) in _NESTED)
    return count


_NESTED = {list, tuple, dict, set}


def _mutated_originals(args, kwargs, mutated):
    for key, new in mutated.items():
        if type(key) is int and 0 <= key < len(args):
            yield args[key], new
        elif type(key) is str and key in kwargs:
            yield kwargs[key], new


def _forget_mutated(args, kwargs, mutated, cache):
    """The jury's objects stay as they were; the candidate's side holds a changed copy of
    each, so the next call must send them again (a fresh reference), not by reference."""
    for orig, _ in _mutated_originals(args, kwargs, mutated):
        entry = cache.get(id(orig))
        if entry is not None and entry[0] is orig:
            del cache[id(orig)]


def _apply_mutations(args, kwargs, mutated, cache):
    """In-place changes the candidate made to list/dict/set arguments, made here too."""
    for orig, new in _mutated_originals(args, kwargs, mutated):
        if type(orig) is list and type(new) is list:
            orig[:] = new
        elif type(orig) is dict and type(new) is dict:
            orig.clear()
            orig.update(new)
        elif type(orig) is set and type(new) is set:
            orig.clear()
            orig.update(new)
        else:
            continue
        entry = cache.get(id(orig))
        if entry is not None and entry[0] is orig:
            entry[1] = fingerprint(orig)


class _CandidateFunction:
    """What the jury code sees as the candidate's function: every call is a round trip."""

    def __init__(self, channel, name):
        self._channel = channel
        self.__name__ = self.__qualname__ = name

    def __call__(self, *args, **kwargs):
        return self._channel.call(self.__name__, args, kwargs)

    def __repr__(self):
        return f"<candidate function {self.__name__}>"


class _CandidateInstance:
    """``Solution()`` in jury code: attribute access gives the candidate's methods."""

    def __init__(self, channel):
        self._channel = channel

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _CandidateFunction(self._channel, name)


def _read_file(name):
    try:
        with open(name, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return b""
    _os.unlink(name)
    return data


def _spawn():
    """Start the candidate's interpreter: fresh exec, fds 0-4 only, nothing of ours inherited."""
    def high(fd):  # >= 10, so the dup2 onto 3/4 below never maps an fd onto itself
        moved = _fcntl.fcntl(fd, _fcntl.F_DUPFD_CLOEXEC, 10)
        _os.close(fd)
        return moved
    req_r, req_w = (high(fd) for fd in _os.pipe2(_os.O_CLOEXEC))
    rep_r, rep_w = (high(fd) for fd in _os.pipe2(_os.O_CLOEXEC))
    null = high(_os.open(_os.devnull, _os.O_RDONLY | _os.O_CLOEXEC))
    argv = [_sys.executable, "-S", "-B", "-c", CALLEE_STUB]
    pid = _os.posix_spawn(_sys.executable, argv, dict(_os.environ), setsigdef=(_signal.SIGINT,), file_actions=[
        (_os.POSIX_SPAWN_DUP2, null, 0), (_os.POSIX_SPAWN_DUP2, 2, 1),
        (_os.POSIX_SPAWN_DUP2, req_r, 3), (_os.POSIX_SPAWN_DUP2, rep_w, 4)])
    for fd in (req_r, rep_w, null):
        _os.close(fd)
    # The callee's code goes first on the request pipe (see programs.CALLEE_STUB).
    magic = getattr(_sys.modules.get("_frozen_importlib_external"), "MAGIC_NUMBER", None)
    packed = CALLEE_CODE if magic == CALLEE_MAGIC else CALLEE_SOURCE
    kind = b"m" if magic == CALLEE_MAGIC else b"s"
    body = _zlib.decompress(_binascii.a2b_base64(packed))
    view = memoryview(kind + _U32.pack(len(body)) + body)
    while view:
        view = view[_os.write(req_w, view):]
    return pid, req_w, rep_r


def _test_line(exc):
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<tests>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return f" (test line {line})" if line else ""


def _judge(channel, exc):
    """The verdict of a test that ended with ``exc`` (None: it completed)."""
    if channel.failure is not None:  # decides even if the jury code swallowed the abort
        return channel.failure
    if exc is None:
        return "AC", ""
    if isinstance(exc, _JuryProblem):
        return "IE", str(exc)
    tb = getattr(exc, "_candidate_traceback", None)
    if tb is not None:
        return "RE", f"the candidate raised {type(exc).__name__}: {exc}\n{tb}"
    if isinstance(exc, AssertionError):
        note = f": {exc}" if str(exc) else ""
        return "WA", f"assertion failed{_test_line(exc)}{note}"
    if isinstance(exc, NameError):
        return "IE", (f"the test code uses a name it does not define{_test_line(exc)}: {exc}; "
                      "tests reach the candidate only through its entry point")
    if isinstance(exc, MemoryError):
        return "MLE", "memory limit exceeded while testing"
    return "RE", f"exception while testing{_test_line(exc)}: {type(exc).__name__}: {exc}"


def _main():
    entry, entry_class, kind, cpu_limit = _sys.argv[1], _sys.argv[2], _sys.argv[3], float(_sys.argv[4])
    in_place = len(_sys.argv) > 5 and _sys.argv[5] == "in-place"
    entry_class = "" if entry_class == "-" else entry_class
    # Before anything of the candidate exists: our /proc files (mem, fd, environ) become
    # root-only, and ptrace/process_vm_readv of us need a capability it never has.
    if _ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
        _emit("IE", "prctl(PR_SET_DUMPABLE, 0) failed")
    # The candidate runs as our uid and may signal us. Every signal but SIGINT ends us (a
    # run killed by a signal: never an accept); SIGINT would raise KeyboardInterrupt
    # anywhere in our code, and in our epilogue turn the verdict into IE (a hostile review
    # got a wrong answer's sample dropped that way). Ignored here; the candidate's
    # interpreter gets the default back (posix_spawn setsigdef), as python3 has it.
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    candidate = _read_file("candidate.py")
    setup = _read_file("setup_code.py").decode("utf-8", "surrogatepass")
    prompt = _read_file("prompt.py").decode("utf-8", "surrogatepass")
    pid, req_w, rep_r = _spawn()
    channel = _Channel(pid, req_w, rep_r, cpu_limit, in_place)
    # The tests, from stdin (a pipe/fd the candidate never gets); then stdin is gone.
    chunks = []
    while chunk := _os.read(0, 1 << 20):
        chunks.append(chunk)
    _os.close(0)
    tests = b"".join(chunks).decode("utf-8", "surrogatepass")
    try:
        setup_code = compile(setup, "<setup>", "exec")
        test_code = compile(tests, "<tests>", "exec")
    except BaseException as exc:
        _emit("IE", f"jury code does not compile: {type(exc).__name__}: {exc}")
    ns = {"__name__": "__main__", "__builtins__": _builtins}
    try:
        exec(setup_code, ns)
    except BaseException as exc:
        _emit("IE", f"setup code failed: {type(exc).__name__}: {exc}")
    if kind == "humaneval" and prompt:
        # The prompt is jury text (signature, docstring, and helpers some tests call, e.g.
        # HumanEval's poly() and encode_cyclic()). A prompt that is not code defines nothing.
        try:
            exec(compile(prompt, "<prompt>", "exec"), ns)
        except Exception:
            pass
    proxy = _CandidateFunction(channel, entry)
    ns[entry] = proxy
    if entry_class:
        ns[entry_class] = lambda: _CandidateInstance(channel)
    failure = None
    try:
        channel.send(("load", setup, candidate, entry, entry_class))
        reply = channel.recv()
        if reply != ("ready",):
            channel.unexpected(reply)
        exec(test_code, ns)
        if kind == "humaneval":
            check = ns.get("check")
            if not callable(check):
                raise _JuryProblem("the test code defines no check(candidate)")
            check(proxy)
    except BaseException as exc:
        failure = exc
    verdict, message = _judge(channel, failure)
    channel.reap()
    if verdict == "AC" and channel.cpu_s > channel.limit():
        # Polling can miss the last stretch of a call; rusage cannot.
        verdict, message = "TLE", f"CPU time limit {cpu_limit:g} s exceeded ({channel.cpu_s:.3f} s)"
    _emit(verdict, message, channel.cpu_s, channel.maxrss_kb, channel.limit())


if __name__ == "__main__":
    try:
        _main()
    except BaseException as exc:  # a fault of ours: never an accept, never the candidate's
        _emit("IE", f"function harness failed: {type(exc).__name__}: {exc}")
