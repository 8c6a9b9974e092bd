# The candidate's side of a function-call test: a fresh interpreter the harness starts.
#
# Runs after the codec (programs.py puts codec.py's text first). Everything in this process
# belongs to the candidate once its code is loaded: it may patch, replace or kill any of
# this. Nothing here is trusted; the harness believes only well-formed codec replies, and
# those can say no more than a return value could.
#
# fd 3: requests from the harness, fd 4: replies; stdout and stderr go to the run's stderr.
# Requests: ("load", setup, code, entry, entry_class), then ("call", name, args, kwargs)
# where each argument is ("v", value), ("n", ref, value) (keep it: it will come again as a
# reference) or ("r", ref).
# Replies:  ("ready",) ("ce", text) ("missing", text) ("raised", type, message, traceback)
#           ("exit", type, traceback) ("memory", traceback) ("ok", value, mutated)
#           ("unsupported", type name) ("toolarge", reason)
import builtins as _callee_builtins
import os as _callee_os
import sys as _callee_sys

_REQ, _REP = 3, 4


def _callee_read(n):
    buf = b""
    while len(buf) < n:
        chunk = _callee_os.read(_REQ, n - len(buf))
        if not chunk:
            _callee_os._exit(0)  # the harness is done with us
        buf += chunk
    return buf


def _callee_recv():
    n = _U32.unpack(_callee_read(4))[0]
    return decode(_callee_read(n))


def _callee_send(msg):
    data = encode(msg)
    view = memoryview(_U32.pack(len(data)) + data)
    while view:
        view = view[_callee_os.write(_REP, view):]


def _callee_tb(exc):
    """The candidate's traceback, without this file's own frames."""
    try:
        import traceback
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename in ("<string>", "<callee>"):
            tb = tb.tb_next
        return "".join(traceback.format_exception(type(exc), exc, tb))[-1500:]
    except BaseException:
        return ""


def _callee_text(obj):
    try:
        text = str(obj)
        return text[:1000] if type(text) is str else "?"
    except BaseException:
        return "?"


def _callee_exception_reply(exc):
    name = type(exc).__name__
    if not isinstance(name, str):
        name = "?"
    if isinstance(exc, MemoryError):
        return ("memory", _callee_tb(exc))
    if isinstance(exc, Exception):
        return ("raised", name, _callee_text(exc), _callee_tb(exc))
    return ("exit", name, _callee_tb(exc))


def _callee_load(setup, code, entry, entry_class):
    ns = {"__name__": "__main__", "__builtins__": _callee_builtins}
    _callee_sys.argv[:] = ["candidate.py"]
    try:
        exec(compile(setup, "setup_code.py", "exec"), ns)
    except BaseException as exc:
        return None, _callee_exception_reply(exc)
    try:
        compiled = compile(code, "candidate.py", "exec")
    except BaseException as exc:
        return None, ("ce", _callee_tb(exc))
    try:
        exec(compiled, ns)
    except BaseException as exc:
        return None, _callee_exception_reply(exc)
    if entry_class and entry_class in ns:
        try:
            return ns[entry_class](), ("ready",)
        except BaseException as exc:
            return None, _callee_exception_reply(exc)
    if entry not in ns:
        what = f"class {entry_class} with a method {entry}" if entry_class else f"a function {entry}"
        return None, ("missing", f"the submission does not define {what}")
    return ns, ("ready",)


def _callee_main():
    msg = _callee_recv()
    _, setup, code, entry, entry_class = msg
    holder, reply = _callee_load(setup, code, entry, entry_class)
    _callee_send(reply)
    if holder is None:
        return
    cache = {}  # ref -> [value, fingerprint]: arguments the harness sends once

    def arg(spec):
        if spec[0] == "v":
            return spec[1], None
        if spec[0] == "n":
            cache[spec[1]] = [spec[2], fingerprint(spec[2])]
        return cache[spec[1]][0], cache[spec[1]]

    while True:
        _, name, wire_args, wire_kwargs = _callee_recv()
        args, kwargs, watch = [], {}, []
        for i, spec in enumerate(wire_args):
            value, entry = arg(spec)
            args.append(value)
            watch.append((i, value, entry))
        for k, spec in wire_kwargs.items():
            value, entry = arg(spec)
            kwargs[k] = value
            watch.append((k, value, entry))
        watch = [(k, v, e if e is not None else [v, fingerprint(v)])
                 for k, v, e in watch if type(v) in (list, dict, set)]
        try:
            target = holder[name] if type(holder) is dict else getattr(holder, name)
            result = target(*args, **kwargs)
        except BaseException as exc:
            _callee_send(_callee_exception_reply(exc))
            continue
        mutated = {}
        try:
            for k, value, entry in watch:
                if changed(value, entry[1]):
                    mutated[k] = value
                    entry[1] = fingerprint(value)
            _callee_send(("ok", result, mutated))
        except Unsupported as exc:
            _callee_send(("unsupported", str(exc)))
        except TooLarge as exc:
            _callee_send(("toolarge", str(exc)))
        except BaseException as exc:  # a hostile __eq__ in a mutated argument, say
            _callee_send(_callee_exception_reply(exc))


if __name__ == "__main__":
    try:
        _callee_main()
    finally:
        _callee_sys.stdout.flush()
        _callee_os._exit(0)
