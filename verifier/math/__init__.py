"""Math answer judge: is a model's final answer the same as the gold answer?

Public API (used by ``POST /v1/math/verify``)::

    from verifier.math import judge, extract_answer, MathVerdict
    v = judge(gold, prediction, timeout_s=5.0, extract=True)

Pipeline: ``extract`` (last \\boxed / "answer is" / #### / bare answer / last number) ->
``normalize`` (units, degrees, thousands separators, spacing) -> ``latex`` (own tokenizer
and recursive-descent parser to a JSON AST) -> ``structure`` (sets, tuples, intervals,
equations, percents) with ``fastnum`` (exact rationals, in-process) or ``sympy_backend``
(in a killable worker process from ``pool``).

Policies:
* numbers: decimals are read as exact rationals (0.1+0.2 equals 0.3). When either side
  was written as a decimal or in e/10^k notation, values are equal when
  |a-b| <= 1e-9*max(|a|,|b|) (1/3 == 0.3333333333333, 1/3 != 0.33); there is no absolute
  tolerance, so 1e-10 != 2e-10 and 0 != 1e-15. When both sides are exact (integers,
  fractions, radicals, pi) rationals compare exactly (10^12 != 10^12+1) and irrational
  values within 1e-25 relative (evaluation noise only).
* percent: ``X%`` equals ``X`` (percent as unit) and ``X/100`` (its value); a bare 50
  never equals 0.5.
* degrees: the degree mark is dropped (30° == 30); no conversion to radians.
* mixed numbers: ``2\\frac{1}{3}`` is 7/3 (integer immediately followed by an integer \\frac).
* units: ``\\text{...}`` words, ``\\$`` and common unit words after a number are dropped.
* equations: ``x = 3`` equals ``3``; ``y = 2x+1`` equals ``2x - y + 1 = 0`` (proportional
  sides); equations in different single variables differ.
* inequalities are sets: ``x > 2`` equals ``(2, \\infty)``; open/closed ends matter.
* ``(a, b)`` is a point unless compared with an interval/inequality; tuples are ordered,
  sets and "x = 1 or x = 2" lists are unordered; a tuple never equals a set.
* ``e`` is Euler's number, ``i`` the imaginary unit, ``\\log`` the natural logarithm.
* an unparsable prediction is not equivalent (no number is fished out of it); an
  unparsable gold answer is an error. The "last number" rule applies only when a whole
  response has no box, no "answer is"/"Final Answer:"/#### and is not itself a bare answer.
* words of 4+ letters that are not math (sin, pi, ...) make an answer prose: a gold or
  prediction that is all words is compared as text, case-insensitively ("Devon").
* sympy failures: if the gold compares with itself, the prediction is blamed (not
  equivalent); otherwise ``error`` is set. Timeouts and the worker memory cap (1 GiB)
  give ``timed_out=True``.

Threading: ``judge`` blocks; call it from executor threads in async code. Up to 2 sympy
comparisons run at once (a process pool); the fast path (string match, rational numbers,
sets/tuples of them) runs in the calling thread in well under a millisecond. Call
``verifier.math.shutdown()`` on service shutdown (also registered with atexit).
"""

from verifier.math.extract import extract_answer
from verifier.math.judge import MathVerdict, get_pool, judge, set_pool, shutdown

__all__ = ["MathVerdict", "extract_answer", "get_pool", "judge", "set_pool", "shutdown"]
