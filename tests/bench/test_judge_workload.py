"""The workload of bench/judge_vs_bare.py: deterministic, unique, and its labels true.

Truth by construction is checked here against the real sample tests: every generated
program, run bare and judged by the bench's own comparators, gets the verdict it was
generated with (so a mismatch the benchmark reports is the judge's, not the workload's).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from judge_bare import compare, run_submission  # noqa: E402
from judge_workload import PROBLEMS, cpp_source, generate, python_source  # noqa: E402

from samples import layout  # noqa: E402


def test_same_seed_same_workload_and_every_source_unique():
    a, b = generate(40, seed=3), generate(40, seed=3)
    assert a == b
    assert generate(40, seed=4) != a
    for lang, subs in a.items():
        assert len({s.tagged(1, "local") for s in subs}) == 40
        # the tag makes a source unique per round and target too (no cache hit anywhere)
        assert subs[0].tagged(1, "local") != subs[0].tagged(2, "local") != subs[0].tagged(1, "bare")
        labels = [s.label for s in subs]
        assert (labels.count("AC"), labels.count("WA"), labels.count("RE")) == (28, 8, 4)
    cpp = a["cpp"]
    assert sum(s.bits for s in cpp) == 20
    for s in cpp:
        assert ("#include <bits/stdc++.h>" in s.code) == s.bits
        assert s.bits or "#include <iostream>" in s.code


@pytest.mark.parametrize("checker,out,ans,want", [
    ("integers", b"+5 007\n", b"5 7\n", "AC"),
    ("integers", b"5 7 8", b"5 7", "WA"),
    ("integers", b"5 x", b"5 7", "PE"),
    ("integers", b"5 8", b"5 7", "WA"),
    ("tokens", b"a  b\n\n", b"a b", "AC"),
    ("tokens", b"A b", b"a b", "WA"),
    ("lines", b"1 x 2 = 2  \r\n\n\n", b"1 x 2 = 2\n", "AC"),
    ("lines", b"1  x 2 = 2\n", b"1 x 2 = 2\n", "WA"),
    ("lines", b"a\n", b"a\nb\n", "WA"),
])
def test_bare_comparators(checker, out, ans, want):
    assert compare(checker, out, ans) == want


def _first_tests(pid: str, n: int = 10):
    tests = sorted((layout.STDIO / pid / "tests").glob("*.in"), key=lambda p: int(p.stem))[:n]
    if len(tests) < n:
        pytest.skip(f"{pid}: tests not built")
    return tests, [p.with_suffix(".ans").read_bytes() for p in tests]


@pytest.mark.parametrize("pid", sorted(PROBLEMS))
@pytest.mark.parametrize("language", ["python", "cpp"])
def test_every_template_gets_its_label_bare(pid, language):
    inputs, answers = _first_tests(pid)
    checker = PROBLEMS[pid][0]
    for label in ("AC", "WA", "RE"):
        # both RE styles (exception at start / bad exit after output): seeds 0..3 cover them
        for seed in range(2 if label == "RE" else 1):
            rng = random.Random(seed)
            code = (python_source(pid, label, rng) if language == "python"
                    else cpp_source(pid, label, False, rng))
            verdicts = run_submission(language, code, inputs).verdicts(checker, answers)
            overall = next((v for v in verdicts if v != "AC"), "AC")
            assert overall == label, f"{pid} {language} {label}:\n{code}\n{verdicts}"
            if label == "RE":
                assert set(verdicts) == {"RE"}
