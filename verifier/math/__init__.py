"""Math answer judge: is a model's final answer the same as the gold answer?

Public API (used by ``POST /v1/math/verify``)::

    from verifier.math import judge, extract_answer, MathVerdict
    v = judge(gold, prediction, timeout_s=5.0, extract=True, require_box=False)

Pipeline: ``extract`` (the extraction policy, see ``extract.py`` and docs/math-judging.md)
-> times, base numbers, text answers -> ``normalize`` (number formats, units, labels,
degrees) -> ``latex`` (own tokenizer and recursive-descent parser to a JSON AST) ->
``limits`` (size guard) -> ``structure`` (sets, tuples, intervals, equations, percents)
with ``fastnum`` (exact rationals, in-process) or, in a killable worker process from
``pool``, ``sympy_backend`` and, for LaTeX our parser does not support, math-verify
(``reference``, a runtime dependency that only the workers import; ``notation`` decides
which predictions it may see).

Policies (docs/math-judging.md has the full list with examples):
* extraction: last box group, ``####``, answer phrases, a bare answer, the last math
  span; never "the last number in the text". ``require_box=True``: boxes only.
* numbers: decimals are read as exact rationals (0.1+0.2 equals 0.3). When either side
  was written as a decimal or in e/10^k notation, values are equal when
  |a-b| <= 1e-9*max(|a|,|b|) (1/3 == 0.3333333333333, 1/3 != 0.33); there is no absolute
  tolerance, so 1e-10 != 2e-10 and 0 != 1e-15. When both sides are exact (integers,
  fractions, radicals, pi) rationals compare exactly (10^12 != 10^12+1) and irrational
  values within 1e-25 relative (evaluation noise only).
* approximations: a prediction marked approximate (``\\approx``, "about", ...) that is a
  decimal with >= 6 significant digits matches an exact gold within half a unit of its
  last digit (pi ~ ``\\approx 3.14159``; unmarked 3.14159 and ``\\approx 3.14`` are not pi).
* number formats: ``10,\\!000``, ``1 000`` (groups of three), ``3 1/2`` and ``3\\frac12``
  (mixed numbers), ``2,5`` (decimal comma, against a single number), ``0.\\overline{3}``,
  number words ("six"); ``3 4`` (a space between numbers) is ambiguous and wrong.
* percent: ``X%`` equals ``X`` (percent as unit) and ``X/100`` (its value); a bare 50
  never equals 0.5.
* degrees: the degree mark is dropped (30° == 30), except inside a trigonometric
  argument where it converts to radians (``\\sin 30^\\circ`` == 1/2).
* a gold ``h:mm`` is a time (12:00 != 1:00); other ``a:b`` are ratios (so is a time-shaped
  prediction against a ratio gold); ``a:0`` is
  ambiguous.
* units: trailing words after a number (any noun: "18 eggs"), ``\\text{...}`` units and
  ``\\$`` are dropped, except words that change the value ("5 hundred", "5 or more").
* equations and labels: ``x = 3`` equals ``3``; ``f(x) = ...`` and ``(a, b) = ...`` are
  their right side; ``y = 2x+1`` equals ``2x - y + 1 = 0`` (proportional sides).
* inequalities are sets: ``x > 2`` equals ``(2, \\infty)``; open/closed ends matter.
* ``(a, b)`` is a point unless compared with an interval/inequality; tuples are ordered,
  sets and "x = 1 or x = 2" lists are unordered; a tuple never equals a set; a list of
  several answers never equals one answer.
* ``e`` is Euler's number (``\\mathrm{e}`` too), ``i`` the imaginary unit, ``\\log`` the
  natural logarithm; a prime makes another name (``E'`` != ``E``).
* verdicts: an unparsable, ambiguous, too large (reason ``too_large``) or too slow
  (reason ``timeout``, at ``timeout_s`` per call) prediction is NOT equivalent, with
  ``error`` None; ``error`` (an internal error for callers) only for a gold answer that
  neither parser reads or a judge failure (a crashed worker).

Threading: ``judge`` blocks; call it from executor threads in async code. Up to 2 sympy
comparisons run at once (a process pool); the fast path (string match, rational numbers,
sets/tuples of them) runs in the calling thread in well under a millisecond. Neither
sympy nor math-verify is imported in the calling process. Call
``verifier.math.shutdown()`` on service shutdown (also registered with atexit).
"""

from verifier.math.extract import extract_answer
from verifier.math.judge import MathVerdict, NeedsWorker, get_pool, judge, set_pool, shutdown

__all__ = ["MathVerdict", "NeedsWorker", "extract_answer", "get_pool", "judge", "set_pool", "shutdown"]
