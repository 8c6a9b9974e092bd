"""Precompiled headers for the compile step: built once by trusted code, offered read-only.

Stdlib only (the agent imports it inside the sandbox). Why: ``#include <bits/stdc++.h>``
alone costs about 1.3 s of a 1.4 s contest compile; its PCH loads in about 0.2 s.

Layout: ``<root>/<language>-<key>/`` holds ``<header>.gch`` for each header of
``Language.pch_headers`` and a ``MANIFEST.json`` written last. ``key`` hashes the compiler's
version, target and the mtime/size of its compiler proper (cc1plus) together with the exact
flags of ``compile_argv``, so a compiler upgrade or a flag change names another directory:
a stale PCH is never offered, and GCC's own check (version, flags, macros) is a second guard.

When a PCH is offered (``Offer``): only if the source's first directive, after nothing but
whitespace and comments, is ``#include <H>`` for a header H we hold. Then the argv gets
``-isystem <dir>`` (searched before the standard dirs, so GCC looks for ``<dir>/H.gch``
first; the dir holds no headers, only .gch files) and ``-MD -MF main.d`` (how the runner
learns whether GCC used it). Any other source compiles with the unchanged argv. GCC itself
refuses a PCH when a macro it saw is defined differently, or when a pragma or a token
precedes the include; a refused or unreadable .gch falls back to the header (silently:
no ``-Winvalid-pch``). What GCC cannot fall back from (a truncated .gch is a fatal error)
the runner catches: a compile that fails with a PCH offered is compiled again without it,
and that second answer is the verdict.

The PCH is built with a stub ``#include <H>`` (not H itself as the main file), so the
header keeps its system-header status and diagnostics match a plain compile.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from sandboxes.languages import LANGUAGES, Language

FORMAT = "pch-v1"
MANIFEST = "MANIFEST.json"
DEPS_NAME = "main.d"
IMAGE_PCH_ROOT = "/opt/oubliette/pch"  # where infra/sandbox-image/Dockerfile builds them
# argv words that only matter for linking or name files; everything else must match.
_NOT_FOR_HEADER = {"{source}", "-lm"}
_PROPER = {"c": "cc1", "cpp": "cc1plus"}
_HEADER_LANG = {"c": "c-header", "cpp": "c++-header"}
_INCLUDE = re.compile(rb"#[ \t]*include[ \t]*<([A-Za-z0-9_+./-]+)>[ \t]*(?://[^\n\\]*)?(?:\n|$)")


def header_flags(lang: Language) -> list[str]:
    """The compile flags that shape a header's meaning (compile_argv minus files and -l)."""
    argv = list(lang.compile_argv[1:])
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a == "-o":
            skip = True
        elif a not in _NOT_FOR_HEADER:
            out.append(a)
    return out


def _run(argv: list[str]) -> str:
    return subprocess.run(argv, check=True, capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"}).stdout.strip()


def key(lang: Language) -> str:
    """What a PCH depends on; the directory name changes with any of it."""
    cc = lang.compile_argv[0]
    proper = _run([cc, f"-print-prog-name={_PROPER[lang.name]}"])
    st = os.stat(proper)
    ident = {"format": FORMAT, "lang": lang.name, "cc": cc, "flags": header_flags(lang),
             "headers": list(lang.pch_headers),
             "version": _run([cc, "-dumpfullversion", "-dumpmachine"]),
             "proper": [proper, st.st_size, st.st_mtime_ns]}
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]


def dir_name(lang: Language) -> str:
    return f"{lang.name}-{key(lang)}"


def first_include(src: bytes) -> str | None:
    """The header of the source's first directive if it is ``#include <...>`` with only
    whitespace and comments before it; None otherwise (anything unusual: no PCH)."""
    i, n = 0, len(src)
    while i < n:
        c = src[i:i + 1]
        if c in (b" ", b"\t", b"\n", b"\r", b"\f", b"\v"):
            i += 1
        elif src.startswith(b"//", i):
            end = src.find(b"\n", i)
            end = n if end < 0 else end
            if src[i:end].rstrip(b"\r").endswith(b"\\"):  # a continued comment: not worth it
                return None
            i = end
        elif src.startswith(b"/*", i):
            end = src.find(b"*/", i + 2)
            if end < 0:
                return None
            i = end + 2
        else:
            break
    if b"\\" in src[:i] or b"??" in src[:i]:
        return None
    m = _INCLUDE.match(src, i)
    return m.group(1).decode() if m else None


class Offer:
    """What the runner adds to one compile, and how it reads back whether GCC used it."""

    def __init__(self, pch_dir: str, header: str):
        self.dir, self.header = pch_dir, header

    def argv(self, base: list[str]) -> list[str]:
        return [base[0], "-isystem", self.dir, "-MD", "-MF", DEPS_NAME, *base[1:]]

    def used(self, deps: bytes | None) -> bool:
        """GCC used the PCH iff the header itself is not the first file it read after the
        source and the implicit preinclude (the gate made ``#include <H>`` come first).
        A metric only: a source that includes H a second time reads H's file then, so
        such a compile is counted ``not_used`` even when GCC took the PCH."""
        if deps is None:
            return False
        words = [w for w in deps.replace(b"\\\n", b" ").split()[1:] if not w.endswith(b":")]
        rest = [w for w in words[1:] if not w.endswith(b"/stdc-predef.h")]
        return not rest or not rest[0].decode(errors="replace").endswith("/" + self.header)


class Catalog:
    """The PCH directories a runner may offer, looked up once per language (runner side)."""

    def __init__(self, root: str | None):
        self.root = root
        self._dirs: dict[str, tuple[str, frozenset[str]] | None] = {}

    def offer(self, lang: Language, src: bytes) -> Offer | None:
        if not self.root or not lang.pch_headers:
            return None
        header = first_include(src)
        if header is None or header not in lang.pch_headers:
            return None
        entry = self._lookup(lang)
        if entry is None or header not in entry[1]:
            return None
        return Offer(entry[0], header)

    def _lookup(self, lang: Language):
        if lang.name not in self._dirs:
            self._dirs[lang.name] = None
            try:
                d = os.path.join(self.root, dir_name(lang))
                with open(os.path.join(d, MANIFEST)) as f:
                    held = frozenset(json.load(f)["headers"])
                self._dirs[lang.name] = (d, frozenset(
                    h for h in held if os.path.isfile(os.path.join(d, h + ".gch"))))
            except (OSError, ValueError, KeyError, TypeError, subprocess.SubprocessError) as exc:
                print(f"runner: no precompiled headers for {lang.name}: {exc}", file=sys.stderr)
        return self._dirs[lang.name]


# -- building (trusted code only: the host for local slots, docker build for images) ------
def build(root: str, languages: list[str] | None = None) -> list[str]:
    """Make ``<root>/<lang>-<key>/`` for every language with pch_headers, if missing.
    Returns the directories. Concurrent builders serialise on ``<root>/.lock``."""
    os.makedirs(root, mode=0o755, exist_ok=True)
    made = []
    lock = os.open(os.path.join(root, ".lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for name in languages or list(LANGUAGES):
            lang = LANGUAGES[name]
            if lang.pch_headers and lang.compile_argv:
                made.append(_build_one(root, lang))
    finally:
        os.close(lock)
    return made


def _build_one(root: str, lang: Language) -> str:
    final = os.path.join(root, dir_name(lang))
    if os.path.isfile(os.path.join(final, MANIFEST)):
        return final
    tmp = tempfile.mkdtemp(prefix=".build-", dir=root)
    try:
        flags = header_flags(lang)
        for h in lang.pch_headers:
            gch = os.path.join(tmp, h + ".gch")
            os.makedirs(os.path.dirname(gch), exist_ok=True)
            stub = os.path.join(tmp, ".stub.h")
            with open(stub, "w") as f:
                f.write(f"#include <{h}>\n")
            subprocess.run([lang.compile_argv[0], *flags, "-x", _HEADER_LANG[lang.name], "-o", gch, stub],
                           check=True, capture_output=True, timeout=300, cwd=tmp,
                           env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
            os.unlink(stub)
            _check(lang, tmp, h)
        with open(os.path.join(tmp, MANIFEST), "w") as f:
            json.dump({"format": FORMAT, "headers": list(lang.pch_headers), "flags": flags}, f)
        for dirpath, dirs, files in os.walk(tmp):
            os.chmod(dirpath, 0o755)
            for fn in files:
                os.chmod(os.path.join(dirpath, fn), 0o644)
        shutil.rmtree(final, ignore_errors=True)  # a partial one without MANIFEST
        os.rename(tmp, final)
        return final
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _check(lang: Language, pch_dir: str, header: str) -> None:
    """GCC must accept the new PCH with the exact compile flags (else the build failed)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, lang.source_name)
        with open(src, "w") as f:
            f.write(f"#include <{header}>\nint main(void){{return 0;}}\n")
        argv = [a.format(source=lang.source_name, output="probe") for a in lang.compile_argv]
        r = subprocess.run([argv[0], "-isystem", pch_dir, "-Winvalid-pch", "-H", *argv[1:]],
                           capture_output=True, text=True, timeout=120, cwd=tmp,
                           env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
        if r.returncode != 0 or f"! {pch_dir}/{header}.gch" not in r.stderr.splitlines():
            raise RuntimeError(f"PCH for {header} not accepted by {argv[0]}: {r.stderr[-2000:]}")


def main(argv: list[str] | None = None) -> int:
    import argparse
    p = argparse.ArgumentParser(prog="sandboxes.runner.pch", description="Build precompiled headers.")
    p.add_argument("root", help="directory that gets <language>-<key>/ subdirectories")
    a = p.parse_args(argv)
    for d in build(a.root):
        print(d)
    return 0


if __name__ == "__main__":
    sys.exit(main())
