"""Compile custom checkers once, at upload, into static binaries.

Static (``-static``) because the same binary must run under every sandbox backend: the
local bubblewrap sandbox, the Docker image and Lambda (all Debian bookworm, but a static
binary does not even depend on that). The package's own headers (its ``testlib.h``) are
written beside the source, which is compiled from a temporary directory under a fixed
relative name, so ``__FILE__`` and the output do not depend on where we built it.

Builds are cached by a hash of compiler, flags, source and headers: in memory, and on
disk under ``$OUBLIETTE_CHECKER_CACHE`` (default ``$XDG_CACHE_HOME/oubliette/checkers``).
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path, PurePosixPath

CXX_FLAGS = ("-O2", "-std=gnu++17", "-static")
C_FLAGS = ("-O2", "-std=gnu11", "-static")
PLATFORM = "linux-x86_64-glibc"


class CheckerBuildError(Exception):
    """The checker does not compile (message holds the compiler's output)."""


def cache_dir() -> Path:
    env = os.environ.get("OUBLIETTE_CHECKER_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "oubliette" / "checkers"


@functools.lru_cache(maxsize=4)
def compiler_id(compiler: str) -> str:
    path = shutil.which(compiler)
    if path is None:
        raise CheckerBuildError(f"{compiler} not found: install it (scripts/setup.sh installs g++)")
    out = subprocess.run([path, "--version"], capture_output=True, text=True, check=False).stdout
    return out.splitlines()[0] if out else compiler


def _safe_header_name(name: str) -> str:
    p = PurePosixPath(name)
    if p.is_absolute() or ".." in p.parts or not p.parts:
        raise CheckerBuildError(f"header name {name!r} must be a relative path inside the package")
    return str(p)


_memory: dict[str, bytes] = {}


def compile_checker(
    source: bytes,
    *,
    language: str = "cpp",
    headers: dict[str, bytes] | None = None,
    source_name: str = "checker.cpp",
    timeout_s: float = 120.0,
    use_cache: bool = True,
) -> bytes:
    """The static executable for a checker source; CheckerBuildError on any failure."""
    headers = headers or {}
    if language not in ("cpp", "c"):
        raise CheckerBuildError(f"{source_name}: unsupported checker language {language!r} (cpp or c)")
    compiler, flags = ("g++", CXX_FLAGS) if language == "cpp" else ("gcc", C_FLAGS)
    ident = compiler_id(compiler)
    h = hashlib.sha256()
    for part in (ident, " ".join(flags), language, source.hex()):
        h.update(part.encode() + b"\0")
    for name in sorted(headers):
        h.update(name.encode() + b"\0" + hashlib.sha256(headers[name]).digest())
    key = h.hexdigest()
    if use_cache:
        if key in _memory:
            return _memory[key]
        cached = cache_dir() / key
        if cached.is_file():
            _memory[key] = cached.read_bytes()
            return _memory[key]
    binary = _build(source, language, headers, source_name, compiler, flags, timeout_s)
    if use_cache:
        _memory[key] = binary
        try:
            d = cache_dir()
            d.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=d)
            with os.fdopen(fd, "wb") as f:
                f.write(binary)
            os.replace(tmp, d / key)
        except OSError:
            pass  # the on-disk cache is an optimisation only
    return binary


def _build(source: bytes, language: str, headers: dict[str, bytes], source_name: str,
           compiler: str, flags: tuple[str, ...], timeout_s: float) -> bytes:
    src_file = "checker.cpp" if language == "cpp" else "checker.c"
    with tempfile.TemporaryDirectory(prefix="oubliette-checker-") as tmp:
        work = Path(tmp)
        for name, data in headers.items():
            dest = work / _safe_header_name(name)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
        (work / src_file).write_bytes(source)
        cmd = [compiler, *flags, "-I.", f"-ffile-prefix-map={tmp}=.",
               "-o", "checker", src_file]
        if language == "c":
            cmd.append("-lm")
        try:
            res = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=timeout_s, check=False,
                                 env={**os.environ, "LC_ALL": "C"})  # ASCII quotes in messages
        except subprocess.TimeoutExpired:
            raise CheckerBuildError(f"{source_name}: checker compilation exceeded {timeout_s:.0f} s") from None
        if res.returncode != 0:
            out = (res.stderr or res.stdout).replace(src_file, source_name)
            raise CheckerBuildError(f"{source_name}: checker failed to compile ({compiler} "
                                    f"{' '.join(flags)}):\n{out[-4000:].rstrip()}")
        return (work / "checker").read_bytes()
