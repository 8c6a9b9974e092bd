"""Answer extraction costs (near) linear time in the response, which a policy writes: it runs
in the service's threads before any timeout applies (a response of 100,000 ``\\(`` took the
span regex 90 s; 22,000 ``\\boxed{1}`` took the nesting filter 17 s; whitespace after "=" in
the text after an answer phrase, about 15 minutes at 200,000 characters).

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
             "The answer is $" + ". " * (n // 2), "$" + "$a" * (n // 2), "\\boxed{" * (n // 7),
             # a fuzzing helper's finds: whitespace after a claim, unbraced boxes in a row,
             # backslashes with no "$" anywhere
             "The answer is 5.\n5 =" + " " * (n - 30), "The answer is 5.\n5 is" + "\n" * (n - 30) + "x",
             "\\boxed" * (n // 6), "\\fbox1" * (n // 6), "a\\" * (n // 2),
             # a hostile review's: spacing padded around a box (the operand check's pattern
             # took 109 s for 200 KB of spaces before a box, holding the GIL)
             "1" + " " * n + "x\\boxed{12}", "1" + "\t" * n + "x\\boxed{12}", "a+" + " " * n + "\\boxed{12}",
             "\\boxed{12}" + " $" * (n // 2) + "4", "1" + " \\," * (n // 3) + "\\boxed{12}",
             "$" * n + "x\\boxed{12}",
             # out-of-sample check 8: spaces between "is =" and the value (the answer's note
             # patterns started from every space of the run: 110 s at 150,000 spaces)
             "The answer is =" + " " * n + "4", "The answer is 4" + " " * n + "since", "Answer: 4" + " " * n + "(x)",
             # hostile review 5: a pile of values after the answer (17.6 s at 24 KB, and paid)
             "The answer is 12." + " $7" * (n // 3), "\\boxed{12}" + ", i.e., $\\frac{24}{2}$" * (n // 22)]
# answers at the 5,000-character cap, judged without extraction
answers = ["\\sin " + "1" * 4990, "f(x) = " + "m1 " * 1660 + "!", "\\text{a" + " " * 4980 + "}", "1" * 4999]
for text in responses:
    v = judge("12", text, timeout_s=5.0)
    assert not v.equivalent, text[:20]
for text in answers:
    v = judge("12", text, timeout_s=5.0, extract=False)
    assert not v.equivalent, text[:20]
print("judged", len(responses) + len(answers))
'''


def test_pumped_responses_are_extracted_in_linear_time():
    done = subprocess.run([sys.executable, "-c", _PUMPED], cwd=ROOT, capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "judged 27" in done.stdout
