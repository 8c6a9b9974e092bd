"""Languages the sandbox can compile and run: commands, file names and a self-test each.

Stdlib only: the runner agent imports this inside the sandbox (``/usr/bin/python3 -S``,
no venv). A language says how to turn source into an *artifact* once per batch and how to
run the artifact; every backend uses the same table, so a program judged under ``local``
behaves the same under ``docker`` and ``lambda`` (same image toolchain).

Toolchains checked on this host (Debian bookworm): gcc/g++ 12 and python3.11 are used.
Java 17 is installed but left out: the JVM reserves far more address space than the
memory limit (RLIMIT_AS breaks it, it needs a cgroup memory limit instead) and costs
about 0.5 s a compile and 40-60 ms a run of start-up. Go is not installed; Rust exists only
under /root/.cargo (not a Debian toolchain, not visible inside the sandbox).

``{program}`` in ``run_argv`` is replaced by the artifact's file name in the run's
scratch dir; ``{source}`` / ``{output}`` in ``compile_argv`` by the source / artifact names.
"""

from __future__ import annotations

from dataclasses import dataclass, field

PYTHON = "/usr/bin/python3"


@dataclass(frozen=True)
class SelfTest:
    """A tiny program that must print ``expected`` given ``stdin``, run at backend start."""

    code: str
    stdin: bytes
    expected: bytes


@dataclass(frozen=True)
class Language:
    name: str
    source_name: str
    # Run in the scratch dir with the source written as source_name; exit 0 = compiled.
    compile_argv: tuple[str, ...] | None
    # File the compile step leaves behind; it becomes the artifact.
    artifact_name: str
    # Language of the produced artifact ('binary' for native executables).
    artifact_language: str
    run_argv: tuple[str, ...]
    # Main-thread stack rlimit in MiB; None = the run's memory limit. Why big for native
    # code: recursive solutions (DFS over 1e6 nodes) need it and the memory cap still holds.
    # Why not for Python: glibc sizes every new thread's stack from this rlimit, so a stack
    # equal to the address-space cap would make threading.Thread() fail; Python 3.11's
    # Python-to-Python calls do not grow the C stack, so 16 MiB is plenty.
    stack_mb: int | None = None
    env: dict[str, str] = field(default_factory=dict)
    selftest: SelfTest | None = None
    # Headers with a precompiled header (sandboxes/runner/pch.py), used when one is the
    # source's first include. Why these: measured, only they cost enough to matter (bits/
    # stdc++.h 1.3 s -> 0.2 s, iostream 0.29 -> 0.11 s; <vector>, <cstdio>, C's stdio.h save
    # under 60 ms each).
    pch_headers: tuple[str, ...] = ()


# The Python compile step: compile() the source and report a failure as py_compile does.
_PY_SYNTAX_CHECK = (
    "import sys\n"
    "src = open(sys.argv[1], 'rb').read()\n"
    "try:\n"
    "    compile(src, sys.argv[1], 'exec', dont_inherit=True)\n"
    "except Exception as exc:\n"
    "    import py_compile\n"
    "    sys.stderr.write('%s\\n' % py_compile.PyCompileError(type(exc), exc, sys.argv[1]).msg)\n"
    "    sys.exit(1)\n")
_APLUSB_IN = b"2 40\n"
_APLUSB_OUT = b"42\n"

LANGUAGES: dict[str, Language] = {
    "python": Language(
        name="python",
        source_name="main.py",
        # Syntax errors become CE here instead of an RE on every test, reported as
        # `python3 -m py_compile` reports them; nothing is marshalled or written (a .pyc
        # would refuse code nested deeper than marshal goes, which python3 -B runs).
        compile_argv=(PYTHON, "-S", "-B", "-c", _PY_SYNTAX_CHECK, "{source}"),
        artifact_name="main.py",
        artifact_language="python",
        # -S: no site-packages (deterministic, same as the bare baseline); -B: no .pyc writes.
        run_argv=(PYTHON, "-S", "-B", "{program}"),
        stack_mb=16,
        env={"PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8"},
        selftest=SelfTest("a, b = map(int, input().split())\nprint(a + b)\n", _APLUSB_IN, _APLUSB_OUT),
    ),
    "c": Language(
        name="c",
        source_name="main.c",
        compile_argv=("/usr/bin/gcc", "-O2", "-std=gnu11", "-o", "{output}", "{source}", "-lm"),
        artifact_name="main",
        artifact_language="binary",
        run_argv=("{program}",),
        selftest=SelfTest(
            '#include <stdio.h>\nint main(void){long a,b;if(scanf("%ld %ld",&a,&b)!=2)return 1;'
            'printf("%ld\\n",a+b);return 0;}\n', _APLUSB_IN, _APLUSB_OUT),
    ),
    "cpp": Language(
        name="cpp",
        source_name="main.cpp",
        compile_argv=("/usr/bin/g++", "-O2", "-std=gnu++17", "-DONLINE_JUDGE", "-o", "{output}",
                      "{source}", "-lm"),
        artifact_name="main",
        artifact_language="binary",
        run_argv=("{program}",),
        pch_headers=("bits/stdc++.h", "iostream"),
        selftest=SelfTest(
            "#include <iostream>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a+b<<'\\n';}\n",
            _APLUSB_IN, _APLUSB_OUT),
    ),
    # A prebuilt native executable (a compile artifact, a checker). Nothing to compile.
    "binary": Language(
        name="binary",
        source_name="main",
        compile_argv=None,
        artifact_name="main",
        artifact_language="binary",
        run_argv=("{program}",),
    ),
}


def get_language(name: str) -> Language:
    try:
        return LANGUAGES[name]
    except KeyError:
        raise ValueError(f"unknown language {name!r}; known: {', '.join(sorted(LANGUAGES))}") from None


def describe() -> dict[str, dict]:
    """JSON-able summary for the agent's hello reply and the service's /languages."""
    return {
        n: {"compiles": l.compile_argv is not None, "artifact_language": l.artifact_language}
        for n, l in LANGUAGES.items()
    }
