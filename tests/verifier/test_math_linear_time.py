"""Answer extraction costs (near) linear time in the response, which a policy writes: it runs
in the service's threads before any timeout applies (a response of 100,000 ``\\(`` took the
span regex 90 s; 22,000 ``\\boxed{1}`` took the nesting filter 17 s).

The scanner finds exactly the spans the lazy regex (the specification) finds, on a generated
corpus; pumped responses are judged in a child process with a bound of minutes.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

from verifier.math.extract import math_spans

ROOT = Path(__file__).resolve().parents[2]
SPEC_SPANS = re.compile(r"\$\$(.+?)\$\$|(?<!\\)\$(.+?)(?<!\\)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)


def test_math_spans_are_the_ones_the_lazy_regex_finds():
    rnd = random.Random(11)
    alphabet = "$$$\\\\()[]ax \n"
    found = 0
    for _ in range(120_000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randrange(0, 14)))
        spec = [next(g for g in m.groups() if g is not None) for m in SPEC_SPANS.finditer(text)]
        assert math_spans(text) == spec, text
        found += len(spec)
    assert found > 20_000


_PUMPED = r'''
from verifier.math.judge import judge
n = 200_000
responses = ["\\(" * (n // 2), "\\[" * (n // 2), "\\boxed{1}" * (n // 9), "\\boxed 1 " * (n // 9),
             "The answer is $" + ". " * (n // 2), "$" + "$a" * (n // 2), "\\boxed{" * (n // 7)]
for text in responses:
    v = judge("12", text, timeout_s=5.0)
    assert not v.equivalent, text[:20]
print("judged", len(responses))
'''


def test_pumped_responses_are_extracted_in_linear_time():
    done = subprocess.run([sys.executable, "-c", _PUMPED], cwd=ROOT, capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "judged 7" in done.stdout
