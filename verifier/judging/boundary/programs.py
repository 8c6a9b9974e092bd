"""The two sandbox programs of a function-call test, assembled from this package's files.

Why text assembly: each side is one self-contained script for ``/usr/bin/python3 -S`` in
the sandbox (no venv, no access to our package), and both need the same codec. The harness
body is PREAMBLE + codec.py + harness_main.py; the callee body is codec.py + callee_main.py,
which the harness hands to a fresh interpreter through its request pipe.

Why precompiled: compiling ~40 KB of source costs more than starting the interpreter, once
per test on each side. Both bodies also travel as marshalled code objects, used when the
sandbox's interpreter has this interpreter's bytecode magic number (the same CPython minor
version: the project's images and this host are Debian's 3.11); any other interpreter
compiles the source that travels beside them.
"""

from __future__ import annotations

import ast
import base64
import importlib.util
import marshal
import sys
import types
import zlib
from pathlib import Path

_HERE = Path(__file__).resolve().parent

# First lines of the harness: the script's own directory (the run's scratch dir, writable
# by the candidate) must never be searched for modules, or a planted ``json.py`` imported
# lazily after the candidate started would run inside the harness.
PREAMBLE = ("import os, sys\n"
            "_box = os.path.dirname(os.path.abspath(__file__))\n"
            "sys.path[:] = [p for p in sys.path if p and os.path.abspath(p) != _box]\n")

MAGIC = importlib.util.MAGIC_NUMBER


def _source(name: str) -> str:
    return (_HERE / name).read_text(encoding="utf-8")


def _marshalled(source: str, filename: str) -> bytes:
    """Compiled without docstrings and with a one-line line table: the program travels in
    every Lambda event that compiles it (events are capped near 100 KB). The table stays
    valid (every instruction at its function's first line) because code in the candidate's
    process may walk our frames (``inspect.stack()``, ``traceback``); an empty one breaks that."""
    def flat(code: types.CodeType) -> types.CodeType:
        units = len(code.co_code) // 2
        table = bytearray()
        while units > 0:  # 3.11 format: "no column" entries of up to 8 code units, line delta 0
            k = min(units, 8)
            table += bytes((0x80 | (13 << 3) | (k - 1), 0))
            units -= k
        consts = tuple(flat(c) if isinstance(c, types.CodeType) else c for c in code.co_consts)
        return code.replace(co_linetable=bytes(table), co_consts=consts)
    code = compile(source, filename, "exec", dont_inherit=True, optimize=2)
    if sys.version_info[:2] in ((3, 11), (3, 12)):  # the line table format those two share
        code = flat(code)
    return marshal.dumps(code)


def _minified(source: str) -> bytes:
    """The fallback source without comments (the same code: ast round trip)."""
    return ast.unparse(ast.parse(source)).encode("utf-8")


def _packed(data: bytes) -> str:
    """A short str literal for ``data``: base64 of zlib (a bytes repr would be 3x longer,
    and tokenizing the program is part of every test's start-up)."""
    return repr(base64.b64encode(zlib.compress(data, 9)).decode("ascii"))


CODEC_SOURCE = _source("codec.py")
CALLEE_BODY = CODEC_SOURCE + "\n" + _source("callee_main.py")
HARNESS_BODY = PREAMBLE + CODEC_SOURCE + "\n" + _source("harness_main.py")

# What ``python3 -S -c`` runs in the candidate's process: read the callee (kind byte "m"
# marshalled or "s" source, u32 length, body) from fd 3, then run it.
CALLEE_STUB = (
    "import os\n"
    "def _r(n):\n"
    "    b = b''\n"
    "    while len(b) < n:\n"
    "        c = os.read(3, n - len(b))\n"
    "        if not c:\n"
    "            os._exit(0)\n"
    "        b += c\n"
    "    return b\n"
    "_k = _r(1)\n"
    "_b = _r(int.from_bytes(_r(4), 'little'))\n"
    "if _k == b'm':\n"
    "    import marshal\n"
    "    _c = marshal.loads(_b)\n"
    "else:\n"
    "    _c = compile(_b, '<callee>', 'exec')\n"
    "del _r, _k, _b\n"
    "exec(_c)\n")

# The program: the callee (both forms, unpacked by the harness when it starts the callee),
# then the harness itself, marshalled where the interpreter's magic number matches ours.
HARNESS_SOURCE = (
    "import sys, binascii, zlib\n"
    f"CALLEE_MAGIC = {MAGIC!r}\n"
    f"CALLEE_CODE = {_packed(_marshalled(CALLEE_BODY, '<callee>'))}\n"
    f"CALLEE_SOURCE = {_packed(_minified(CALLEE_BODY))}\n"
    f"CALLEE_STUB = {CALLEE_STUB!r}\n"
    f"if getattr(sys.modules.get('_frozen_importlib_external'), 'MAGIC_NUMBER', None) == {MAGIC!r}:\n"
    "    import marshal\n"
    f"    _code = marshal.loads(zlib.decompress(binascii.a2b_base64({_packed(_marshalled(HARNESS_BODY, '<harness>'))})))\n"
    "else:\n"
    f"    _code = compile(zlib.decompress(binascii.a2b_base64({_packed(_minified(HARNESS_BODY))})), '<harness>', 'exec')\n"
    "exec(_code)\n")
