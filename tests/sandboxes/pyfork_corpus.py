"""A generated corpus of Python programs for the fork-server differential (no answers here).

Each entry is (name, source, stdin). The expected behaviour is never written down: the
test runs every program through a backend (fork server where it has one) and through a
bare ``python3 -S -B main.py`` subprocess and compares the two. The corpus crosses the
usual ways to read stdin with the usual ways to write stdout, then adds endings
(exceptions, sys.exit variants, os._exit, threads, atexit, flush failures), big and
unicode outputs, and probes of what a fresh interpreter looks like from inside.
"""

from __future__ import annotations

import itertools

STDIN = "3\n10 20 30\nhéllo wörld ✓ 日本\n"

# Each reader leaves `nums` (the 3 numbers) and `word` (the unicode line) defined.
READERS = {
    "input": "n = int(input())\nnums = list(map(int, input().split()))\nword = input()\n",
    "readline": ("import sys\nn = int(sys.stdin.readline())\nnums = [int(x) for x in sys.stdin.readline().split()]\n"
                 "word = sys.stdin.readline().rstrip('\\n')\n"),
    "read_split": ("import sys\ndata = sys.stdin.read().split('\\n')\nn = int(data[0])\nnums = list(map(int, data[1].split()))\n"
                   "word = data[2]\n"),
    "buffer_read": ("import sys\nraw = sys.stdin.buffer.read()\nlines = raw.split(b'\\n')\nnums = list(map(int, lines[1].split()))\n"
                    "word = lines[2].decode()\n"),
    "open0": "lines = open(0).read().splitlines()\nnums = list(map(int, lines[1].split()))\nword = lines[2]\n",
    "iterate": ("import sys\nrows = [line.rstrip('\\n') for line in sys.stdin]\nnums = list(map(int, rows[1].split()))\n"
                "word = rows[2]\n"),
    "readlines": "import sys\nrows = sys.stdin.readlines()\nnums = list(map(int, rows[1].split()))\nword = rows[2].strip()\n",
    "bytesio": ("import io, os\nbuf = io.BytesIO(os.read(0, 1 << 16))\ninput = lambda: buf.readline().decode().rstrip('\\n')\n"
                "n = int(input())\nnums = list(map(int, input().split()))\nword = input()\n"),
    "fileinput_like": ("import sys\nit = iter(sys.stdin.read().splitlines())\nnext(it)\nnums = [int(t) for t in next(it).split()]\n"
                       "word = next(it)\n"),
}

WRITERS = {
    "print": "print(sum(nums))\nprint(word)\n",
    "write": "import sys\nsys.stdout.write(str(sum(nums)) + '\\n')\nsys.stdout.write(word + '\\n')\n",
    "buffer": "import sys\nsys.stdout.buffer.write(b'%d\\n' % sum(nums))\nsys.stdout.buffer.write(word.encode() + b'\\n')\n",
    "join": "print('\\n'.join([str(sum(nums)), word]))\n",
    "print_end": "print(sum(nums), end='')\nprint('', word, sep='|', end='\\n')\n",
    "flush": "print(sum(nums), flush=True)\nprint(word, flush=True)\n",
    "oswrite": "import os\nos.write(1, ('%d\\n%s\\n' % (sum(nums), word)).encode())\n",
    "mixed": "import sys\nprint(sum(nums))\nsys.stdout.flush()\nsys.stdout.buffer.write(word.encode() + b'\\n')\n",
    "stderr_too": "import sys\nprint(sum(nums))\nprint('debug', nums, file=sys.stderr)\nprint(word)\n",
}

ENDINGS = {
    "zero_div": "def f(x):\n    return x // 0\nf(1)\n",
    "key_error": "d = {}\nd['missing']\n",
    "index_error": "[][5]\n",
    "value_error": "int('abc')\n",
    "type_error": "None + 1\n",
    "attr_error": "object().nope\n",
    "name_error": "undefined_name\n",
    "assert": "assert 1 == 2, 'not equal'\n",
    "custom": "class Boom(Exception):\n    pass\nraise Boom('custom message ✓')\n",
    "chained": "try:\n    {}['k']\nexcept KeyError as e:\n    raise RuntimeError('wrapped') from e\n",
    "context": "try:\n    1 / 0\nexcept ZeroDivisionError:\n    raise ValueError('during handling')\n",
    "eof": "input()\ninput()\ninput()\ninput()\n",
    "recursion": "def r(n):\n    return r(n + 1)\nr(0)\n",
    "deep_ok": "import sys\nsys.setrecursionlimit(10 ** 6)\ndef r(n):\n    return 0 if n == 0 else 1 + r(n - 1)\nprint(r(100000))\n",
    "exit_none": "import sys\nprint('x')\nsys.exit()\n",
    "exit_0": "import sys\nprint('x')\nsys.exit(0)\n",
    "exit_3": "import sys\nprint('x')\nsys.exit(3)\n",
    "exit_256": "raise SystemExit(256)\n",
    "exit_neg": "import sys\nsys.exit(-1)\n",
    "exit_msg": "import sys\nprint('out')\nsys.exit('fatal: bad input ✓')\n",
    "exit_obj": "import sys\nsys.exit([1, 2])\n",
    "exit_true": "import sys\nsys.exit(True)\n",
    "os_exit_lost": "import os\nprint('buffered, never flushed')\nos._exit(4)\n",
    "os_exit_flushed": "import os, sys\nprint('flushed')\nsys.stdout.flush()\nos._exit(0)\n",
    "builtin_exit": "exit(2)\n",  # -S: no site, so no exit() builtin: a NameError in both
    "keyboard_interrupt": "raise KeyboardInterrupt\n",
    "thread_join": ("import threading, time\ndef w():\n    time.sleep(0.05)\n    print('from thread', flush=True)\n"
                    "threading.Thread(target=w).start()\nprint('main done')\n"),
    "thread_exc": "import threading\ndef w():\n    raise ValueError('in thread')\nt = threading.Thread(target=w)\nt.start()\nt.join()\nprint('after')\n",
    "daemon": "import threading, time\nthreading.Thread(target=time.sleep, args=(10,), daemon=True).start()\nprint('bye')\n",
    "atexit": "import atexit\natexit.register(lambda: print('atexit ran'))\natexit.register(print, 'registered second')\nprint('main')\n",
    "atexit_exc": "import atexit, sys\natexit.register(lambda: print('cleanup'))\nsys.exit(5)\n",
    "atexit_after_error": "import atexit\natexit.register(lambda: print('still runs'))\nraise OSError('x')\n",
    "del_at_exit": "class A:\n    def __del__(self):\n        print('finalized')\na = A()\nprint('main')\n",
    "excepthook": ("import sys\ndef hook(t, v, tb):\n    print('hooked', t.__name__, v, file=sys.stderr)\n"
                   "sys.excepthook = hook\nraise LookupError('custom hook')\n"),
    "flush_fails": "import os\nprint('lost')\nos.close(1)\n",
    "stdout_closed": "import sys\nprint('a')\nsys.stdout.close()\n",
    "broken_print": "import sys\nsys.stdout.close()\nprint('b')\n",
    "stderr_only": "import sys\nsys.stderr.write('only stderr ✓\\n')\n",
    "unicode_out": "print('αβγ 日本語 🎉 \\u00e9')\nprint(chr(0x1F600) * 3)\n",
    "surrogate": "print('\\udc80')\n",
    "big_output": "import sys\nsys.stdout.write('\\n'.join(str(i) for i in range(200000)) + '\\n')\n",
    "big_print_loop": "for i in range(50000):\n    print(i, i * i)\n",
    "big_stderr": "import sys\nfor i in range(3000):\n    print('err line', i, file=sys.stderr)\nprint('done')\n",
    "memory_ok": "x = [0] * (5 * 10 ** 6)\nprint(len(x))\n",
    "gen_exc": "def g():\n    yield 1\n    raise StopIteration\nprint(list(g()))\n",
    "syntax_at_runtime": "exec('x = (')\n",
    "import_error": "import definitely_not_a_module\n",
    "exception_group": "raise ExceptionGroup('many', [ValueError(1), TypeError(2)])\n",
    "warnings": "import warnings\nwarnings.warn('careful')\nprint('after warn')\n",
    "del_replaced_stdout": ("import sys, io\nclass A:\n    def __del__(self):\n        print('del sees', sys.stdout is sys.__stdout__)\n"
                            "a = A()\nsys.stdout = io.StringIO()\nprint('hidden')\n"),
    "del_private_first": ("class A:\n    def __init__(self, n):\n        self.n = n\n    def __del__(self):\n        print('del', self.n)\n"
                          "_b = A('private')\nc = A('public')\n"),
    "del_cycle": ("import gc\nclass A:\n    def __del__(self):\n        print('cycle freed')\n"
                  "a = A()\na.me = a\ndel a\nprint('main')\n"),
    "del_after_exception": ("class A:\n    def __del__(self):\n        print('del after error', flush=True)\n"
                            "a = A()\nraise ValueError('x')\n"),
    "del_after_exit": "import sys\nclass A:\n    def __del__(self):\n        print('del after exit')\na = A()\nsys.exit(4)\n",
    "unflushed_writer": "out = open(1, 'w', closefd=False)\nout.write('through a second writer\\n')\nprint('first')\n",
    "unflushed_file_then_read": ("f = open('data.txt', 'w')\nf.write('x' * 10)\n"
                                 "import atexit\natexit.register(lambda: print(open('data.txt').read() == ''))\n"),
    "logging_atexit": "import logging, sys\nlogging.basicConfig(stream=sys.stdout, level=logging.INFO, format='%(message)s')\nlogging.info('logged')\n",
    "thread_prints_late": ("import threading, sys\nev = threading.Event()\n"
                           "def w():\n    ev.wait()\n    sys.stdout.write('late\\n')\n"
                           "threading.Thread(target=w).start()\nprint('early')\nev.set()\n"),
    "atexit_raises": "import atexit\ndef bad():\n    raise RuntimeError('in atexit')\natexit.register(bad)\nprint('x')\n",
    "excepthook_raises": "import sys\ndef h(*a):\n    raise TypeError('hook broke')\nsys.excepthook = h\nraise ValueError('v')\n",
    "exit_in_thread": "import threading, sys\nt = threading.Thread(target=sys.exit, args=(3,))\nt.start()\nt.join()\nprint('alive')\n",
    "keyboard_in_main_after_output": "print('before')\nraise KeyboardInterrupt('stop')\n",
    "exit_str_unicode": "raise SystemExit('ünïcode ✓')\n",
    "exit_huge": "raise SystemExit(2 ** 40 + 7)\n",
    "flush_fails_then_exit_3": "import os, sys\nprint('lost')\nos.close(1)\nsys.exit(3)\n",
    "unraisable": "class A:\n    def __del__(self):\n        raise ValueError('in del')\nA()\nprint('ok')\n",
    # Finalization: output of __del__/finally run by the interpreter's teardown of modules
    # other than __main__ (a fork child must end through the same finalization).
    "fin_del_in_builtins": "import builtins\nclass D:\n    def __del__(self):\n        print('999999 garbage')\nbuiltins._keep = D()\nprint(sum(nums))\n",
    "fin_del_in_sys": "import sys\nclass D:\n    def __del__(self):\n        print('999999 garbage')\nsys._keep = D()\nprint(sum(nums))\n",
    "fin_generator_finally_in_sys": ("import sys\ndef g():\n    try:\n        yield 1\n    finally:\n        print('999999 garbage')\n"
                                     "sys._gen = g(); next(sys._gen)\nprint(sum(nums))\n"),
    "fin_cycle_kept_by_os": "import os\nclass D:\n    def __del__(self):\n        print('999999 garbage')\nd = D(); d.self = d\nos._keep = d\ndel d\nprint(sum(nums))\n",
    "fin_del_in_stdlib_module": "import collections\nclass D:\n    def __del__(self):\n        print('999999 garbage')\ncollections._keep = D()\nprint(sum(nums))\n",
    "fin_del_in_class_attr": "import io\nclass D:\n    def __del__(self):\n        print('999999 garbage')\nio.TextIOWrapper\nimport sys\nsys.modules['keep_mod'] = type(sys)('keep_mod')\nsys.modules['keep_mod'].x = D()\n",
    "fin_generator_in_main": "def g():\n    try:\n        yield 1\n    finally:\n        print('gen closed')\nit = g(); next(it)\nprint('main')\n",
    "fin_cycle_in_builtins_after_exit": "import builtins, sys\nclass D:\n    def __del__(self):\n        print('999999 garbage')\nd = D(); d.me = d\nbuiltins._c = d\ndel d\nsys.exit(2)\n",
    "fin_del_in_sys_after_error": "import sys\nclass D:\n    def __del__(self):\n        print('999999 garbage')\nsys._keep = D()\nraise ValueError('x')\n",
    "fin_del_local_at_exit": "import sys\nclass D:\n    def __del__(self):\n        print('999999 garbage')\ndef f():\n    d = D()\n    sys.exit(0)\nf()\n",
    "fin_del_writes_stderr": "import sys\nclass E:\n    def __del__(self):\n        sys.stderr.write('bye\\n')\nsys._e = E()\n",
    "fin_atexit_then_del": "import atexit, sys\nclass D:\n    def __del__(self):\n        print('999999 garbage')\nsys._keep = D()\natexit.register(print, 'atexit first')\n",
    # sys.excepthook and exit codes as _Py_HandleSystemExit / PyErr_Print treat them.
    "hook_exit_0": "import sys\ndef h(*a): sys.exit(0)\nsys.excepthook = h\nprint(sum(nums))\nraise ValueError\n",
    "hook_exit_5": "import sys\ndef h(*a):\n    print('in hook')\n    sys.exit(5)\nsys.excepthook = h\nraise ValueError\n",
    "hook_exit_msg": "import sys\ndef h(*a): sys.exit('hook says bye')\nsys.excepthook = h\n1 / 0\n",
    "hook_none": "import sys\nsys.excepthook = None\nraise ValueError('v')\n",
    "hook_deleted": "import sys\ndel sys.excepthook\nraise ValueError('v')\n",
    "hook_raises_keyboard": "import sys\ndef h(*a): raise KeyboardInterrupt\nsys.excepthook = h\nraise ValueError('v')\n",
    "hook_then_del": "import sys\nclass D:\n    def __del__(self):\n        print('999999 garbage')\ndef h(*a):\n    sys._keep = D()\n    sys.exit(0)\nsys.excepthook = h\nraise ValueError\n",
    "atexit_exit_0": "import atexit, sys\natexit.register(sys.exit, 0)\nprint('x')\nraise ValueError\n",
    "atexit_exit_7": "import atexit, sys\natexit.register(sys.exit, 7)\nprint('x')\n",
    "exit_300": "import sys\nsys.exit(300)\n",
    "exit_511": "raise SystemExit(511)\n",
    "exit_neg_255": "raise SystemExit(-255)\n",
    "exit_float": "import sys\nsys.exit(1.5)\n",
    "exit_dict": "import sys\nsys.exit({'a': 1})\n",
    "exit_class_obj": "import sys\nclass C:\n    def __str__(self):\n        return 'custom str'\nsys.exit(C())\n",
    "exit_bool_false": "import sys\nsys.exit(False)\n",
    "builtins_clobbered": ("import builtins\nfor n in ('isinstance', 'getattr', 'type', 'SystemExit', 'BaseException',"
                           " 'KeyboardInterrupt'):\n    setattr(builtins, n, None)\nprint('x')\nraise ValueError('v')\n"),
    "builtins_clobbered_exit": "import builtins, sys\nbuiltins.isinstance = builtins.SystemExit = None\nsys.exit(3)\n",
    "exit_in_del": "import sys\nclass A:\n    def __del__(self):\n        sys.exit(9)\nsys._a = A()\nprint('x')\n",
    # What the zygote's quiet end (_exit after the flush, where nothing can run at exit)
    # must notice, or leave to the full finalization: every way code or a write runs at exit.
    "q_ctypes_printf": "import ctypes\nlibc = ctypes.CDLL(None)\nlibc.printf(b'%d from C stdio\\n', 42)\nprint('py')\n",
    "q_ctypes_loaded_only": "import ctypes\nprint('ctypes loaded')\n",
    "q_open_fd1_unflushed": "f = open(1, 'w', closefd=False)\nf.write('via second writer\\n')\nprint('py')\n",
    "q_buffered_fd1_unflushed": "import io\nb = io.BufferedWriter(io.FileIO(1, 'w', closefd=False))\nb.write(b'raw buffered\\n')\n",
    "q_dup_fdopen": "import os\nw = os.fdopen(os.dup(1), 'w')\nw.write('dup writer\\n')\n",
    "q_reader_open0": "data = open(0).read().split()\nprint(len(data))\n",
    "q_reader_rb": "f = open(0, 'rb')\nprint(len(f.read()))\n",
    "q_weakref_callback": ("import weakref\nclass O:\n    pass\no = O()\nr = weakref.ref(o, lambda _: print('callback'))\n"
                           "print('main')\n"),
    "q_weakref_no_callback": "import weakref\nclass O:\n    pass\no = O()\nr = weakref.ref(o)\nprint(r() is o)\n",
    "q_weakvaluedict": ("import weakref\nclass O:\n    pass\nd = weakref.WeakValueDictionary()\nk = O()\nd[1] = k\n"
                        "print(len(d))\n"),
    "q_weakref_finalize": "import weakref\nclass O:\n    pass\no = O()\nweakref.finalize(o, print, 'finalize ran')\n",
    "q_weakproxy_callback": ("import weakref\nclass O:\n    pass\no = O()\np = weakref.proxy(o, lambda _: print('proxy cb'))\n"
                             "print('main')\n"),
    "q_yield_from_close": ("class It:\n    def __iter__(self):\n        return self\n    def __next__(self):\n        return 1\n"
                           "    def close(self):\n        print('inner closed')\ndef g():\n    yield from It()\n"
                           "x = g()\nnext(x)\nprint('main')\n"),
    "q_genexpr_suspended": "it = (int(t) for t in '1 2 3'.split())\nprint(next(it))\n",
    "q_gen_with_suspended": ("import contextlib\n@contextlib.contextmanager\ndef cm():\n    yield\n    print('cm exit')\n"
                             "def g():\n    with cm():\n        yield 1\nx = g()\nnext(x)\n"),
    "q_gen_except_suspended": ("def g():\n    try:\n        yield 1\n    except GeneratorExit:\n        print('saw exit')\n        raise\n"
                               "x = g()\nnext(x)\n"),
    "q_int_subclass_del": ("class I(int):\n    __slots__ = ()\n    def __del__(self):\n        print('int del')\n"
                           "x = I(5)\nprint(x + 1)\n"),
    "q_str_subclass_del_in_sys": ("import sys\nclass S(str):\n    __slots__ = ()\n    def __del__(self):\n        print('str del')\n"
                                  "sys._k = S('k')\n"),
    "q_metaclass_del": ("class M(type):\n    def __del__(cls):\n        print('class gone')\nclass C(metaclass=M):\n    pass\n"
                        "print('main')\n"),
    "q_del_added_late": "class A:\n    pass\na = A()\nA.__del__ = lambda self: print('late del')\nprint('main')\n",
    "q_del_inherited": ("class B:\n    def __del__(self):\n        print('base del')\nclass C(B):\n    pass\nc = C()\n"),
    "q_exception_with_del": ("class E(Exception):\n    def __del__(self):\n        print('exc del')\nraise E('boom')\n"),
    "q_custom_stdout": ("import sys\nclass W:\n    def __init__(self, s):\n        self.s = s\n    def write(self, t):\n"
                        "        return self.s.write(t.upper())\n    def flush(self):\n        self.s.write('FLUSHED\\n')\n"
                        "sys.stdout = W(sys.__stdout__)\nprint('shout')\n"),
    "q_stdout_none": "import sys\nprint('before')\nsys.stdout = None\n",
    "q_stringio_subclass_close": ("import io, sys\nclass S(io.StringIO):\n    def close(self):\n        sys.__stdout__.write('closed S\\n')\n"
                                 "        super().close()\ns = S()\n"),
    "q_coroutine_never_awaited": "async def f():\n    pass\nc = f()\nprint('main')\n",
    "q_async_gen_suspended": ("async def ag():\n    try:\n        yield 1\n    finally:\n        print('ag finally')\n"
                              "a = ag()\nprint('main')\n"),
    "q_settrace": "import sys, threading\nsys.settrace(lambda *a: print('trace', a[1]) or None)\nprint('main')\n",
    "q_settrace_del": ("import sys\nclass D:\n    def __del__(self):\n        print('traced del')\nd = D()\n"
                       "sys.settrace(lambda *a: print('trace', a[1]) or None)\n"),
    "q_setprofile": "import sys, threading\nsys.setprofile(lambda f, e, a: print('prof', e) if e == 'call' else None)\n",
    "q_audit_hook": "import sys\nsys.addaudithook(lambda e, a: print('audit', e) if e.startswith('cpython') else None)\nprint('main')\n",
    # (silent: how many collections run depends on the allocation history, not the program)
    "q_gc_callback": "import gc\ngc.callbacks.append(lambda p, i: None)\nprint('main')\n",
    "q_threading_atexit": "import concurrent.futures\nwith concurrent.futures.ThreadPoolExecutor(1) as ex:\n    print(ex.submit(sum, [1, 2]).result())\n",
    "q_threading_no_threads": "import threading\nprint(threading.active_count())\n",
    "q_daemon_thread": ("import threading, time\nev = threading.Event()\ndef w():\n    ev.set()\n    time.sleep(30)\n"
                       "threading.Thread(target=w, daemon=True).start()\nev.wait()\nprint('main')\n"),
    "q_big_heap": "d = {i: (i, str(i)) for i in range(300000)}\nprint(len(d))\n",
    "q_big_heap_del": ("class A:\n    def __del__(self):\n        print('big del')\nkeep = [[i] for i in range(300000)]\n"
                       "a = A()\nprint(len(keep))\n"),
    "q_exit_true": "import sys\nprint('x')\nsys.exit(True)\n",
    "q_exit_3": "import sys\nprint('x')\nsys.exit(3)\n",
    "q_exit_str": "import sys\nprint('x')\nsys.exit('bye')\n",
    "q_stdout_closed": "import sys\nprint('x')\nsys.stdout.close()\n",
    "q_unflushed_big": "import sys\nsys.stdout.write('y' * 100000 + '\\n')\n",
    # Found by the red team (kept as found): the scan must run none of the program's code,
    # and finalizers reached through ctypes, class swaps or builtin callbacks still count.
    "rt_scan_getattr_prints_answer": ("import sys\na, b = 3, 5\nclass Evil:\n    done = False\n"
                                      "    def __getattr__(self, name):\n        if not Evil.done:\n"
                                      "            Evil.done = True\n            sys.stdout.write('%d\\n' % (a + b))\n"
                                      "        raise AttributeError(name)\nsys.modules['weakref'] = Evil()\n"),
    "rt_scan_dict_eq_prints_answer": ("import sys\na, b = 3, 5\narmed = False\nclass K:\n"
                                      "    def __hash__(self):\n        return hash('__del__')\n"
                                      "    def __eq__(self, other):\n        global armed\n        if armed:\n"
                                      "            armed = False\n            sys.stdout.write('%d\\n' % (a + b))\n"
                                      "        return False\nC = type('C', (), {K(): 1})\nc = C()\narmed = True\n"),
    "rt_sys_dict_eq": ("import sys\nclass K:\n    def __hash__(self):\n        return hash('stdout')\n"
                       "    def __eq__(self, other):\n        sys.__stdout__.write('eq ran\\n')\n        return False\n"
                       "sys.__dict__[K()] = 1\nprint('main')\n"),
    "rt_module_class_getattribute": ("import sys\nclass M(type(sys)):\n    def __getattribute__(self, name):\n"
                                     "        sys.__stdout__.write('hooked ' + name + '\\n')\n"
                                     "        return object.__getattribute__(self, name)\n"
                                     "print('main')\nsys.__class__ = M\n"),
    "rt_weakref_callback_builtin_write": ("import sys, _weakref\nclass T:\n    pass\nt = T()\n"
                                          "r = _weakref.ref(t, sys.stdout.write)\nprint('main')\n"),
    "rt_weakref_subclass_callback_property": ("import weakref\nclass T:\n    pass\nclass R(weakref.ref):\n"
                                              "    @property\n    def __callback__(self):\n        print('prop ran')\n"
                                              "        return None\nt = T()\nr = R(t, lambda _: print('cb'))\n"),
    "rt_ctypes_printf_hidden": ("import sys\nprint(8)\nimport ctypes\nctypes.CDLL(None).printf(b'JUNK\\n')\n"
                                "del sys.modules['_ctypes']\n"),
    "rt_ctypes_atexit_abort_hidden": ("import sys\nprint(8)\nimport ctypes\n"
                                      "ctypes.pythonapi.Py_AtExit(ctypes.cast(ctypes.CDLL(None).abort, ctypes.c_void_p))\n"
                                      "del sys.modules['_ctypes']\n"),
    "rt_threading_shutdown_replaced": ("import threading\ndef s():\n    print('shutdown ran')\n"
                                       "threading._shutdown = s\nprint('main')\n"),
    "rt_nested_lambdas_520": "print(8)\nf = " + "lambda: " * 520 + "0\n",
    "rt_nested_lambdas_1000": "print(8)\nf = " + "lambda: " * 1000 + "0\n",
    # Second review (kept as found; stdin replaced by constants): each must end as python3 ends.
    'rt2_k01_sys_class_kbint': 'import sys, posix\na, b = 3, 5\nclass M(type(sys)):\n    def __getattribute__(self, name):\n        if name == "excepthook":\n            posix.write(1, b"%d\\n" % (a + b)); posix._exit(0)\n        return super().__getattribute__(name)\nsys.__class__ = M\nraise KeyboardInterrupt\n',
    'rt2_k02_traceback_property': 'import sys, posix\na, b = 3, 5\nclass E(Exception):\n    @property\n    def __traceback__(self):\n        posix.write(1, b"%d\\n" % (a + b)); posix._exit(0)\nraise E\n',
    'rt2_k03_sysexit_code_property_twice': 'import sys, atexit\na, b = 3, 5\natexit.register(int)\nclass X(SystemExit):\n    n = 0\n    @property\n    def code(self):\n        X.n += 1\n        if X.n == 2:\n            print(a + b)\n        return 0\nraise X\n',
    'rt2_k04_hook_missing_stderr_sysexit': 'import sys\na, b = 3, 5\nprint(a + b)\nclass Err:\n    def write(self, s): raise SystemExit(0)\n    def flush(self): pass\ndel sys.excepthook\nsys.stderr = Err()\nraise ValueError("boom")\n',
    'rt2_k05_hook_raises_stderr_sysexit': 'import sys\na, b = 3, 5\nprint(a + b)\nclass Err:\n    def write(self, s): raise SystemExit(0)\n    def flush(self): pass\ndef hook(*args): raise ValueError("hook fails")\nsys.excepthook = hook\nsys.stderr = Err()\nraise ValueError("boom")\n',
    'rt2_k06_sysexit_code_raises_sysexit0': 'import sys\na, b = 3, 5\nprint(a + b)\nclass X(SystemExit):\n    @property\n    def code(self):\n        raise SystemExit(0)\nraise X(3)\n',
    'rt2_k07_exc_traceback_setter': 'import sys, posix\na, b = 3, 5\nclass E(Exception):\n    def _g(self): return None\n    def _s(self, v):\n        posix.write(1, b"%d\\n" % (a + b)); posix._exit(0)\n    __traceback__ = property(_g, _s)\nraise E\n',
    'rt2_k08_kbint_sys_class_setattr': 'import sys, posix\na, b = 3, 5\nclass M(type(sys)):\n    def __setattr__(self, name, value):\n        if name == "excepthook":\n            posix.write(1, b"%d\\n" % (a + b)); posix._exit(0)\n        super().__setattr__(name, value)\nsys.__class__ = M\nraise KeyboardInterrupt\n',
    'rt2_r01_bufferedreader_evil_raw': 'import sys, posix, io\na, b = 3, 5\nprint(a + b)\nclass Raw:\n    closed = False\n    def readable(self): return True\n    def close(self): posix.write(1, b"JUNK\\n")\nr = io.BufferedReader(Raw())\n',
    'rt2_r02_bufferedreader_evil_raw_exit': 'import sys, posix, io\na, b = 3, 5\nprint(a + b)\nclass Raw:\n    closed = False\n    def readable(self): return True\n    def close(self): sys.stdout.flush(); posix._exit(7)\nr = io.BufferedReader(Raw())\n',
    'rt2_r03_scandir_cycle_warning': 'import sys, posix, warnings\na, b = 3, 5\nprint(a + b)\nwarnings.simplefilter("always")\nwarnings.showwarning = lambda *a, **k: posix.write(1, b"JUNK\\n")\nclass C: pass\nc = C(); c.c = c; c.it = posix.scandir(".")\ndel c\n',
    'rt2_r04_fileio_cycle_warning': 'import sys, posix, warnings, io\na, b = 3, 5\nprint(a + b)\nwarnings.simplefilter("always")\nwarnings.showwarning = lambda *a, **k: posix.write(1, b"JUNK\\n")\nclass C: pass\nc = C(); c.c = c; c.f = io.FileIO("main.py", "rb")\ndel c\n',
    'rt2_r05_reader_cycle_unraisable': 'import sys, posix, warnings\na, b = 3, 5\nprint(a + b)\nwarnings.simplefilter("error")\nsys.unraisablehook = lambda u: posix.write(1, b"JUNK\\n")\nclass C: pass\nc = C(); c.c = c; c.f = open("main.py", "rb")\ndel c\n',
    'rt2_s01_stdout_reinit_flush_fails_second': 'import sys, posix\na, b = 3, 5\nclass B:\n    n = 0\n    closed = False\n    def writable(self): return True\n    def readable(self): return False\n    def seekable(self): return False\n    def write(self, b): posix.write(1, b); return len(b)\n    def flush(self):\n        B.n += 1\n        if B.n == 2: raise OSError("second flush fails")\nsys.stdout.__init__(B())\nprint(a + b)\n',
    'rt2_s05_stderr_reinit_flush_fails_second': 'import sys, posix\na, b = 3, 5\nclass B:\n    n = 0\n    closed = False\n    def writable(self): return True\n    def readable(self): return False\n    def seekable(self): return False\n    def write(self, b): posix.write(2, b); return len(b)\n    def flush(self):\n        B.n += 1\n        if B.n == 2: raise OSError("second flush fails")\nsys.stderr.__init__(B())\nprint(a + b)\n',
    'rt2_t01_threading_get_ident': 'import sys, posix\na, b = 3, 5\nprint(a + b)\nimport threading\n_gi = threading.get_ident\nthreading.get_ident = lambda: (posix.write(1, b"JUNK\\n"), _gi())[1]\n',
    'rt2_t02_threading_main_thread': 'import sys, posix\na, b = 3, 5\nprint(a + b)\nimport threading\nclass F:\n    @property\n    def _is_stopped(self):\n        posix.write(1, b"JUNK\\n"); return True\nthreading._main_thread = F()\n',
    'rt2_t03_threading_shutdown_exit': 'import sys, posix\na, b = 3, 5\nprint(a + b)\nimport threading\nclass F:\n    @property\n    def _is_stopped(self):\n        sys.stdout.flush(); posix._exit(4)\nthreading._main_thread = F()\n',
    'rt2_w02_fake_weakref_module': 'import sys, posix\na, b = 3, 5\nprint(a + b)\nimport _weakref\nm = type(sys)("weakref")\nexec("""\nclass WeakValueDictionary:\n    def __init__(self):\n        def cb(r):\n            posix.write(1, b"JUNK\\\\n")\n        self.cb = cb\nclass WeakKeyDictionary:\n    pass\n""", m.__dict__)\nm.posix = posix\nsys.modules["weakref"] = m\nw = m.WeakValueDictionary()\nclass T: pass\nt = T(); t.me = t\nr = _weakref.ref(t, w.cb)\nkeep = (r)\ndel t\n',
    'rt2_w03_weakset_data_keptalive': 'import sys, posix\na, b = 3, 5\nprint(a + b)\nfrom _weakrefset import WeakSet\nclass D(set):\n    def discard(self, item): posix.write(1, b"JUNK\\n")\nclass T: pass\nt = T(); t.me = t\nw = WeakSet(); w.data = D(); w.add(t)\nkeep = (w)\ndel t\n',
    'rt2_x06_generator_close_nohandler_cycle': 'import sys, posix, warnings\na, b = 3, 5\nprint(a + b)\nwarnings.simplefilter("always")\nwarnings.showwarning = lambda *a, **k: posix.write(1, b"JUNK\\n")\ndef g(it):\n    yield 1\nclass C: pass\nc = C(); c.c = c; c.g = g(posix.scandir(".")); next(c.g)\ndel c\n',
    "q_sys_last_holds_del": ("import sys\nclass D:\n    def __del__(self):\n        print('held by traceback')\n"
                             "def f():\n    d = D()\n    1 / 0\nf()\n"),
}

# Where a fork differs from python3 by design (PROTOCOL.md): the zygote's objects are frozen
# and never finalized, so a program that gives one of them a class with a __del__ does not
# see it run at exit (python3 runs it). Not in the differential; the quiet end must still
# refuse them (test_pyfork_quiet_end.py), so they end through the full finalization.
BY_DESIGN = {
    # and (second review) objects the program freezes itself, and the zygote's frames and
    # globals, which the program can reach (sys._getframe(1)) and rewrite: the same as
    # ending by os._exit, so what it wrote before the end is what is judged; and the
    # recursion limit, reached a few calls earlier (the zygote's frames sit below
    # __main__'s): sys.setrecursionlimit(3) fails in the fork.
    'rt2_s03_recursionlimit_low_end': 'import sys\na, b = 3, 5\nprint(a + b)\nsys.setrecursionlimit(3)\n',
    'rt2_s04_recursionlimit_low_exc': 'import sys\na, b = 3, 5\nprint(a + b)\nsys.setrecursionlimit(4)\nraise SystemExit(0)\n',
    'rt2_d02_freeze_sysattr_exit': 'import sys\na, b = 3, 5\nprint(a + b)\nimport gc, posix\nclass A:\n    def __del__(self, e=posix._exit): e(3)\nsys.foo = A()\ngc.freeze()\n',
    'rt2_d03_freeze_builtins_del': 'import sys\na, b = 3, 5\nprint(a + b)\nimport gc, builtins\nclass A:\n    def __del__(self): print("JUNK")\nbuiltins.foo = A()\ngc.freeze()\n',
    'rt2_d04_freeze_open_fd1': 'import sys\na, b = 3, 5\nprint(a + b)\nimport gc\nf = open(1, "w", closefd=False)\nf.write("JUNK\\n")\nsys.keep = f\ngc.freeze()\n',
    'rt2_f01_frame_globals_patch_quiet': 'import sys\na, b = 3, 5\nprint(a + b)\nclass A:\n    def __del__(self): print("JUNK")\nx = A()\ntry:\n    sys._getframe(1).f_globals["_ends_quietly"] = lambda streams: True\nexcept ValueError:\n    pass\n',
    'rt2_f02_frame_globals_patch_leave': 'import sys, posix\na, b = 3, 5\nprint(a + b)\ntry:\n    g = sys._getframe(1).f_globals\n    g["_leave"] = lambda box, ends: (sys.stdout.flush(), posix._exit(0))\nexcept ValueError:\n    pass\nraise RuntimeError("crash")\n',
    'rt2_f03_tb_frame_globals': 'import sys, posix\na, b = 3, 5\nprint(a + b)\nclass A:\n    def __del__(self): print("JUNK")\nx = A()\ntry:\n    raise Exception\nexcept Exception as e:\n    fr = e.__traceback__.tb_frame.f_back\nif fr is not None:\n    fr.f_globals["_quiet_check"] = lambda streams: True\ndel fr\n',
    "rt_class_swap_frozen_spec": ("import sys, posix\nprint(8)\nspec = sys.modules['codecs'].__spec__\n"
                                  "class S(type(spec)):\n    def __del__(self, w=posix.write):\n        w(1, b'JUNK\\n')\n"
                                  "spec.__class__ = S\n"),
    "rt_class_swap_codec_info": ("import posix, codecs\nprint(8)\nci = codecs.lookup('utf-8')\nclass C(type(ci)):\n"
                                 "    def __del__(self, w=posix.write):\n        w(1, b'JUNK\\n')\nci.__class__ = C\n"),
}

PROBES = {
    # The run's own stdio re-opened by path (the pipes must belong to the run, as a shell's do).
    "dev_stdin": "print(open('/dev/stdin').read().split()[1])\n",
    "dev_stdout": "f = open('/dev/stdout', 'w')\nf.write(input() + '\\n')\nf.close()\nprint('after')\n",
    "dev_stderr": "import sys\nopen('/dev/stderr', 'w').write('to err\\n')\nprint(input())\n",
    "proc_fd1_append": "import os\nwith open('/proc/self/fd/1', 'a') as f:\n    print(os.getpid() > 0, file=f)\n",
    "modules": "import sys\nprint(sorted(sys.modules))\n",
    "globals": "print(sorted(globals()))\nprint(__name__, __doc__, __package__, __spec__, __cached__)\n",
    "loader": "print(type(__loader__).__name__, __loader__.name)\n",
    "argv_file": "import sys, os\nprint(sys.argv[0] == __file__, os.path.basename(__file__), len(sys.argv))\n",
    "cwd_path0": "import os, sys\nprint(os.getcwd() == os.path.dirname(__file__) == sys.path[0])\nprint(sys.path[1:])\n",
    "orig_argv": "import sys\nprint(sys.orig_argv[0], sys.orig_argv[1:3], sys.orig_argv[-1] == __file__)\n",
    "flags": "import sys\nprint(sys.flags)\nprint(sys.executable, sys.prefix)\n",
    "env": "import os\nprint(sorted(os.environ))\nprint(os.environ['HOME'] == os.environ['TMPDIR'] == os.getcwd())\n",
    "stdio": ("import sys\nfor s in (sys.stdin, sys.stdout, sys.stderr):\n"
             "    print(s.name, s.mode, s.encoding, s.errors, s.line_buffering, s.write_through, repr(s.newlines), s.isatty())\n"
             "print(sys.stdin is sys.__stdin__, sys.stdout is sys.__stdout__, sys.stderr is sys.__stderr__)\n"
             "print(sys.stdin.buffer.raw.name, sys.stdout.buffer.raw.name, type(sys.stdout.buffer).__name__)\n"),
    "signals": ("import signal\nfor s in (signal.SIGINT, signal.SIGPIPE, signal.SIGXFSZ, signal.SIGTERM, signal.SIGCHLD, signal.SIGHUP,"
                " signal.SIGUSR1, signal.SIGALRM):\n    print(s.name, signal.getsignal(s))\nprint(signal.pthread_sigmask(signal.SIG_BLOCK, []))\n"),
    "limits": "import sys\nprint(sys.getrecursionlimit(), sys.getswitchinterval(), sys.getdefaultencoding())\n",
    "gc_enabled": "import gc\nprint(gc.isenabled(), gc.get_threshold())\n",
    "random_works": "import random\nx = random.random()\nprint(0 <= x < 1, random.randint(1, 1))\n",
    "source_readable": "print(open(__file__).read().splitlines()[0])\n",
    "pickle_main": "import pickle\nclass P:\n    v = 3\nprint(pickle.loads(pickle.dumps(P())).v)\n",
    "dunder_main_import": "import __main__\nprint(__main__.__dict__ is globals(), __main__.__file__ == __file__)\n",
    "fds": "import os\nprint(sorted(int(f) for f in os.listdir('/proc/self/fd'))[:3])\n",
    "sigpipe_default": "import signal\nprint(signal.getsignal(signal.SIGPIPE) == signal.SIG_IGN)\n",
    "threading_main": "import threading\nprint(threading.current_thread() is threading.main_thread(), threading.active_count())\n",
    "tempdir": "import tempfile, os\nprint(tempfile.gettempdir() == os.getcwd())\n",
    "traceback_depth": "import traceback\ntry:\n    1 / 0\nexcept ZeroDivisionError:\n    print(len(traceback.format_exc().splitlines()))\n",
}


def corpus() -> list[tuple[str, str, str]]:
    out = []
    for (rn, reader), (wn, writer) in itertools.product(READERS.items(), WRITERS.items()):
        out.append((f"io-{rn}-{wn}", reader + writer, STDIN))
    for name, body in ENDINGS.items():
        out.append((f"end-{name}", body, STDIN))
    for name, body in PROBES.items():
        out.append((f"probe-{name}", body, STDIN))
    # A reader/writer prefix before each ending: state built up before the ending matters.
    # (Not for the exit cases: what they test is how a run ends, not what came before.)
    endings = [(n, b) for n, b in ENDINGS.items() if not fork_end_case(n)]
    for (name, body), reader in zip(endings, itertools.cycle(READERS.values())):
        out.append((f"mix-{name}", reader + "print(sum(nums))\n" + body, STDIN))
    return out


def fork_end_case(name: str) -> bool:
    """The exit cases written for the fork server's end (quiet end, red-team reviews). A
    backend without a fork server runs every Python test exec'd, as the bare reference is:
    those cases tell it nothing, so it may skip them."""
    return name.removeprefix("end-").startswith(("q_", "rt_", "rt2_"))
