"""Precompiled headers change no verdict: the runner's compile (PCH offered) against plain g++
in a bare subprocess on a generated corpus, and with a corrupt or stale PCH cache.

The runner here is the same code every backend runs (sandboxes.runner.core); the backends'
own wiring (bind mount, image build) is checked in test_pch_backends.py.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess

import pytest

from sandboxes.languages import LANGUAGES
from sandboxes.runner import pch
from sandboxes.runner import convert
from sandboxes.runner.core import Runner, RunnerConfig
from sandboxes.types import Source
from tests.sandboxes import pch_corpus as corpus

CPP = LANGUAGES["cpp"]
pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="no g++ on this host")


@pytest.fixture(scope="module")
def pch_root(tmp_path_factory) -> str:
    root = str(tmp_path_factory.mktemp("pch"))
    pch.build(root)
    return root


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """name -> (compiled, diagnostics class, exit code, stdout) from bare g++ (memoised)."""
    work = str(tmp_path_factory.mktemp("bare"))
    memo: dict[tuple[str, str], tuple] = {}

    def get(language: str, code: str):
        if (language, code) not in memo:
            ok, log, prog = corpus.bare_compile(language, code, work)
            rc, out = corpus.run_program(prog) if ok else (None, b"")
            memo[(language, code)] = (ok, corpus.diagnostics_class(ok, log), rc, out)
        return memo[(language, code)]

    return get


def judged(runner: Runner, language: str, code: str, tmp_path) -> tuple[tuple, str | None]:
    reply = runner.compile(_req(code, language))
    assert reply["status"] in ("OK", "CE"), reply
    ok = reply["status"] == "OK"
    rc, out = None, b""
    if ok:
        prog = tmp_path / f"prog-{len(os.listdir(tmp_path))}"
        prog.write_bytes(base64.b64decode(reply["artifact"]["data_b64"]))
        prog.chmod(0o755)
        rc, out = corpus.run_program(str(prog))
    return (ok, corpus.diagnostics_class(ok, reply["log"]), rc, out), reply.get("pch")


def _req(code: str, language: str = "cpp") -> dict:
    return convert.compile_request(Source(language=language, code=code))


def _runner(tmp_path, root: str | None) -> Runner:
    return Runner(RunnerConfig(scratch_root=str(tmp_path / "scratch"), pch_root=root))


def _force_offer(monkeypatch):
    """Offer a PCH whenever the source names the header anywhere: GCC's own check (macros,
    pragmas, tokens before the include) must then keep the result the same."""
    def anywhere(src: bytes):
        for h in CPP.pch_headers:
            if h.encode() in src:
                return h
        return None
    monkeypatch.setattr(pch, "first_include", anywhere)


@pytest.mark.parametrize("forced", [False, True], ids=["gated", "forced-offer"])
def test_cpp_corpus_matches_bare_gcc(forced, pch_root, reference, tmp_path, monkeypatch):
    runner = _runner(tmp_path, pch_root)
    used, mismatches = [], []
    programs = corpus.cpp_corpus()
    if forced:  # only where forcing changes anything: the gate said no, the header is there
        programs = {n: c for n, c in programs.items()
                    if pch.first_include(c.encode()) is None
                    and any(h.encode() in c.encode() for h in CPP.pch_headers)}
        _force_offer(monkeypatch)
    for name, code in programs.items():
        got, how = judged(runner, "cpp", code, tmp_path)
        want = reference("cpp", code)
        if got != want:
            mismatches.append((name, how, got, want))
        if how == "used":
            used.append(name)
    assert not mismatches, mismatches
    if forced:  # GCC took the offer where nothing before the include mattered to it
        assert "continued-comment/probe" not in used and "define-before/probe" not in used
        return
    # Not vacuous: the common shapes did go through the PCH.
    for name in ("bits/probe", "bits-nospace/probe", "bits-comments/probe",
                 "define-int-after/probe", "iostream-vector-algorithm/probe", "bits/warning"):
        assert name in used, (name, used)
    assert "define-before/probe" not in used and "ndebug-iostream/probe" not in used


def test_c_programs_compile_exactly_as_before(pch_root, reference, tmp_path):
    runner = _runner(tmp_path, pch_root)
    for name, code in corpus.C_PROGRAMS.items():
        got, how = judged(runner, "c", code, tmp_path)
        assert how is None, name  # no C header is worth a PCH: the argv is the old one
        assert got == reference("c", code), name


def test_a_real_error_is_compiled_again_without_the_pch(pch_root, reference, tmp_path):
    runner = _runner(tmp_path, pch_root)
    code = corpus.BITS + corpus.ERROR
    reply = runner.compile(_req(code))
    assert reply["status"] == "CE" and reply["pch"] == "retried"
    assert "undeclared_thing" in reply["log"]
    assert pch.DEPS_NAME not in reply["log"] and ".gch" not in reply["log"]


# -- a corrupt or stale cache changes no verdict ----------------------------------------------
def _damaged_root(tmp_path, pch_root: str, how: str) -> str:
    src = os.path.join(pch_root, pch.dir_name(CPP))
    root = tmp_path / f"damaged-{how}"
    dst = root / pch.dir_name(CPP)
    (dst / "bits").mkdir(parents=True)
    shutil.copy(os.path.join(src, pch.MANIFEST), dst / pch.MANIFEST)
    for h in CPP.pch_headers:
        real = open(os.path.join(src, h + ".gch"), "rb").read()
        out = dst / (h + ".gch")
        if how == "garbage":
            out.write_bytes(os.urandom(4096))
        elif how == "truncated":
            out.write_bytes(real[: len(real) // 2])
        elif how == "header-only":
            out.write_bytes(real[:64])
        elif how == "empty":
            out.write_bytes(b"")
        elif how == "other-flags":  # a real PCH, made with -O0: GCC must refuse it
            stub = tmp_path / "stub.h"
            stub.write_text(f"#include <{h}>\n")
            subprocess.run(["g++", "-O0", "-std=gnu++17", "-x", "c++-header", "-o", str(out), str(stub)],
                           check=True, capture_output=True)
        elif how == "other-macros":  # a real PCH built without -DONLINE_JUDGE
            stub = tmp_path / "stub.h"
            stub.write_text(f"#include <{h}>\n")
            subprocess.run(["g++", "-O2", "-std=gnu++17", "-x", "c++-header", "-o", str(out), str(stub)],
                           check=True, capture_output=True)
    return str(root)


DAMAGE = ["garbage", "truncated", "header-only", "empty", "other-flags", "other-macros"]
SMALL = ["bits/probe", "bits/error", "iostream-vector-algorithm/probe", "define-int-after/probe",
         "bits/debug-probe", "bits/warning"]


@pytest.mark.parametrize("how", DAMAGE)
def test_damaged_pch_changes_no_verdict(how, pch_root, reference, tmp_path):
    runner = _runner(tmp_path, _damaged_root(tmp_path, pch_root, how))
    programs = corpus.cpp_corpus()
    for name in SMALL:
        got, used = judged(runner, "cpp", programs[name], tmp_path)
        assert got == reference("cpp", programs[name]), (how, name, used)
        # GCC takes none of these, except one built without -DONLINE_JUDGE: no header reads
        # that macro, so GCC accepts it (and the probe still sees oj=1, as the reference).
        if how != "other-macros":
            assert used != "used", (how, name)


def test_stale_key_or_missing_manifest_is_not_offered(pch_root, tmp_path):
    code = corpus.BITS + corpus.PROBE
    # The right files under another compiler's key: never looked at.
    stale = tmp_path / "stale"
    shutil.copytree(os.path.join(pch_root, pch.dir_name(CPP)), stale / "cpp-0000000000000000")
    assert _runner(tmp_path, str(stale)).compile(_req(code)).get("pch") is None
    # A build that never finished (no MANIFEST): not offered either.
    partial = tmp_path / "partial"
    shutil.copytree(os.path.join(pch_root, pch.dir_name(CPP)), partial / pch.dir_name(CPP))
    os.unlink(partial / pch.dir_name(CPP) / pch.MANIFEST)
    reply = _runner(tmp_path, str(partial)).compile(_req(code))
    assert reply["status"] == "OK" and reply.get("pch") is None


def test_key_follows_flags_and_build_is_idempotent(pch_root, monkeypatch):
    import dataclasses
    before = pch.dir_name(CPP)
    other = dataclasses.replace(CPP, compile_argv=tuple(a if a != "-O2" else "-O3" for a in CPP.compile_argv))
    assert pch.dir_name(other) != before
    made = pch.build(pch_root)
    assert made == [os.path.join(pch_root, before)]
    manifest = json.load(open(os.path.join(made[0], pch.MANIFEST)))
    assert manifest["flags"] == ["-O2", "-std=gnu++17", "-DONLINE_JUDGE"]
    for dirpath, _, files in os.walk(made[0]):
        assert os.stat(dirpath).st_mode & 0o022 == 0
        for f in files:
            assert os.stat(os.path.join(dirpath, f)).st_mode & 0o022 == 0


# -- the gate: only `#include <H>` first, after nothing but whitespace and comments -------
@pytest.mark.parametrize("src,header", [
    (b"#include <bits/stdc++.h>\n", "bits/stdc++.h"),
    (b"  #  include<iostream>  // io\r\nint x;", "iostream"),
    (b"/* a */ // b\n#include <vector>\n", "vector"),
    (b"#define X\n#include <bits/stdc++.h>\n", None),
    (b'#pragma GCC optimize("O3")\n#include <bits/stdc++.h>\n', None),
    (b'#include "bits/stdc++.h"\n', None),
    (b"// x \\\n#include <bits/stdc++.h>\n", None),
    (b"/* unterminated\n#include <bits/stdc++.h>\n", None),
    (b"#include <bits/stdc++.h> /* c */\n", None),
    (b"%:include <bits/stdc++.h>\n", None),
    (b"\xef\xbb\xbf#include <bits/stdc++.h>\n", None),
    (b"#include <bits/stdc++.h>", "bits/stdc++.h"),
])
def test_first_include_gate(src, header):
    assert pch.first_include(src) == header


def test_deps_say_whether_the_pch_was_used():
    offer = pch.Offer("/p", "bits/stdc++.h")
    assert offer.used(b"main: main.cpp /usr/include/stdc-predef.h\n")
    assert not offer.used(b"main: main.cpp /usr/include/stdc-predef.h \\\n"
                          b" /usr/include/x86_64-linux-gnu/c++/12/bits/stdc++.h \\\n /usr/include/c++/12/cassert\n")
    assert not offer.used(None)
