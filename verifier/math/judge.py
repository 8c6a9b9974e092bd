"""``judge(gold, prediction)``: extract, normalise, parse, compare, with a hard timeout.

Flow: extract the answer -> times / base numbers / text answers -> normalise both strings
-> equal strings win at once -> parse both into our AST -> size guard -> compare
in-process with exact rationals (fast path) -> otherwise a worker process (killed at
``timeout_s``) compares with our sympy backend and with math-verify (``reference``).

"Not equivalent" and "could not judge" stay apart: a prediction that cannot be parsed,
is ambiguous (``3 4``), too large or too slow is not equivalent (``error`` None, reason
``too_large``/``timeout`` for the last two); a gold answer that cannot be parsed, a
crashed worker or an unexpected sympy failure sets ``error`` (an internal error).
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import re
import threading

from pydantic import BaseModel, Field

from verifier.math.claims import claim_forms
from verifier.math.extract import extract_answer, extract_gold
from verifier.math.fastnum import FastScalars, fraction_str, to_fraction
from verifier.math.latex import (MAX_ANSWER_CHARS, Ambiguous, ParseError, TooLong, Unsupported,
                                 parse)
from verifier.math.limits import too_large
from verifier.math.notation import dangling_relation, unsafe_notation
from verifier.math.normalize import (base_number, normalize, option_with_value, plain_text,
                                     strip_wrappers, text_answer, time_of_day)
from verifier.math.pool import PoolTimeout, WorkerFailed, WorkerPool
from verifier.math.structure import NeedsSympy, approx_tol, compare, has_decimal

MAX_INPUT_CHARS = 200_000
# math-verify runs only in the workers; here we only need to know it is installed
_REFERENCE = importlib.util.find_spec("math_verify") is not None
TIMEOUT = "timeout"      # reason: the prediction could not be judged within its budget
TOO_LARGE = "too_large"  # reason: the prediction (or its value) is too large to judge


class MathVerdict(BaseModel):
    """The judgement of one prediction against one gold answer."""

    equivalent: bool = Field(description="True when the prediction's answer equals the gold")
    extracted: str | None = Field(description="answer pulled from the prediction text")
    gold_parsed: str | None = Field(description="parsed gold answer (sympy str form)")
    prediction_parsed: str | None = Field(description="parsed prediction (sympy str form)")
    reason: str = Field(description="why, e.g. 'numeric equal within rel 1e-9'")
    error: str | None = Field(default=None, description="internal failure: no verdict")
    timed_out: bool = Field(default=False, description="comparison exceeded timeout_s "
                            "(then equivalent is False and reason is 'timeout')")


_pool: WorkerPool | None = None
_pool_lock = threading.Lock()


def get_pool() -> WorkerPool:
    """The process-wide worker pool (created on first use, 2 workers)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = WorkerPool(size=2)
        return _pool


def set_pool(pool: WorkerPool | None) -> None:
    """Replace the process-wide pool (shutting the old one down)."""
    global _pool
    with _pool_lock:
        old, _pool = _pool, pool
    if old is not None and old is not pool:
        old.shutdown()


def shutdown() -> None:
    set_pool(None)


atexit.register(shutdown)


def _fast_render(node: list) -> str:
    v = to_fraction(node)
    if v is not None:
        return fraction_str(v)
    if node[0] in ("set", "list", "tuple", "paren"):
        br = {"set": "{}", "list": "[]", "tuple": "()", "paren": "()"}[node[0]]
        return br[0] + ", ".join(_fast_render(x) for x in node[1]) + br[1]
    if node[0] == "eq":
        return f"Eq({_fast_render(node[1])}, {_fast_render(node[2])})"
    if node[0] in ("sym", "const"):
        return node[1]
    if node[0] == "matrix":
        return "Matrix(" + str([[_fast_render(x) for x in r] for r in node[1]]) + ")"
    return json.dumps(node)


_LABELLED_POINT_RE = re.compile(r"\s*+\(?\s*+[A-Za-z](?:_\{?\d+\}?)?(?:\s*+,\s*+[A-Za-z](?:_\{?\d+\}?)?)++\s*+\)?\s*+=\s*+\(")
_NAMED_VALUES_RE = re.compile(r"\s*+[A-Za-z]\s*+=\s*+[^,;<>=]+(?:[,;]\s*+(?:\\text\{\s*and\s*\}\s*+)?[A-Za-z]\s*+=\s*+[^,;<>=]+)++")
_INTERVAL_MARK_RE = re.compile(r"<|>|\\(?:le|ge|leq|geq|lt|gt|in|cup|infty)(?![a-zA-Z])|[≤≥∈∪∞]|\[[^\]]*\)|\([^)]*\]")


def _labelled_point(s: str) -> bool:
    if _LABELLED_POINT_RE.match(s):
        return True
    m = _NAMED_VALUES_RE.fullmatch(s)
    return bool(m) and len(set(re.findall(r"(?:^|[,;])\s*(?:\\text\{\s*and\s*\}\s*)?([A-Za-z])\s*=", s))) >= 2


def _interval_form(s: str) -> bool:
    return bool(_INTERVAL_MARK_RE.search(s))


def _special_forms(gold: str, pred: str) -> tuple[bool, str] | None:
    """Times of day and base-subscript numbers, decided before any parsing."""
    g, p = plain_text(strip_wrappers(gold)), plain_text(strip_wrappers(pred))
    # The gold decides what `a:bb` is: a time when the gold is one (12:00 is not 1:00), else
    # a ratio like any other `a:b` (gold 6:7 against 12:14 was once compared as two clock
    # times; a review found 19 of 62 equal ratios rejected that way).
    gt, pt = time_of_day(g), time_of_day(p)
    if gt:
        return (gt == pt, "times equal" if gt == pt else f"times differ ({gt} vs {pt})")
    if pt and (pt.endswith("m") or re.search(r":0\d", pt)):
        # a clock time (a.m./p.m., or minutes with a leading zero) is no ratio: "10:05" was
        # paid for gold 2 and for the time 10:05 (a hostile review's double coverage)
        return (False, f"a time against a non-time ({pt})")
    claim = claim_forms(g, p)
    if claim is not None:
        return claim
    if (_labelled_point(g) and _interval_form(p)) or (_labelled_point(p) and _interval_form(g)):
        # "(x, y) = (1, 2)" and "x = 1, y = 2" are points; "1 < x < 2" and "x \in (1, 2)" are
        # intervals: each was paid for the other through the shared "(1, 2)" (a seventh review)
        return (False, "a point against an interval")
    if _primes(g) != _primes(p):  # E' is not E, f'(x) is not f(x): some parsers drop marks
        return (False, "derivative marks differ")
    gb, pb = base_number(g), base_number(p)
    if pb and not gb:
        same = g.strip() == str(int(pb[0], pb[1]))
        return (same, "base numbers equal" if same else "base numbers differ")
    if gb:
        if pb:
            same = int(gb[0], gb[1]) == int(pb[0], pb[1])
        else:  # the base is the question's: 101 answers "in base 2" as well as 101_2. Only
            # that reading: its decimal value too paid the question's own number, copied
            # unconverted, on every conversion problem (out-of-sample check 6).
            same = p.upper() == gb[0]
        return (same, "base numbers equal" if same else "base numbers differ")
    return None


def _primes(s: str) -> int:
    return s.count("'") + s.count("\\prime")


# the prediction says it is rounded: its last digit's precision applies (structure.approx_tol)
_APPROX_RE = re.compile(r"\\approx|≈|\\simeq|^\s*(?:~|\\sim(?![a-z])|(?:\\(?:text|mbox|mathrm|textnormal)\s*\{\s*)?"
                        r"(?:approximately|approx\.?|about|roughly))", re.I)
_DECIMAL_COMMA_RE = re.compile(r"-?\d+,(?:\d{1,2}|\d{4,})")


class NeedsWorker(Exception):
    """``fast_only``: this answer needs a sympy worker; nothing was decided."""


def judge(gold: str, prediction: str, *, timeout_s: float = 5.0, extract: bool = True,
          require_box: bool = False, form: str = "value", fast_only: bool = False) -> MathVerdict:
    """As ``_judge_value``; with ``form="as_gold"`` an answer equal in value must also be
    written in the gold's form (``verifier.math.form``: factored, a number, lowest terms...)."""
    for name, val in (("gold", gold), ("prediction", prediction)):
        if not isinstance(val, str):
            raise TypeError(f"{name} must be a str, got {type(val).__name__}")
    if len(gold) > MAX_INPUT_CHARS:
        raise ValueError(f"gold is longer than {MAX_INPUT_CHARS} characters")
    if not timeout_s > 0:
        raise ValueError(f"timeout_s must be > 0, got {timeout_s}")
    if form not in ("value", "as_gold"):
        raise ValueError(f"form must be 'value' or 'as_gold', got {form!r}")
    try:
        v = _judge_value(gold, prediction, timeout_s=timeout_s, extract=extract, require_box=require_box,
                         fast_only=fast_only)
    except (ValueError, IndexError, KeyError, TypeError, RecursionError, OverflowError) as exc:
        # Whose fault? A gold that reads and sizes on its own makes it the prediction's: a
        # malformed or degenerate answer (`x_`, 2,000 `!`, a 5,000-digit base-16 number) is
        # wrong, not an internal error (a review got IE, a dropped sample, from each).
        _gold_reads(gold)  # raises (an internal error: IE) when the gold is the problem
        return MathVerdict(equivalent=False, extracted=None, gold_parsed=None, prediction_parsed=None,
                           reason=f"prediction unparsable: {type(exc).__name__}")
    if form == "value" or not v.equivalent or v.extracted is None:
        return v
    from verifier.math.form import form_matches

    ok, why = form_matches(extract_gold(gold), v.extracted)
    if ok:
        return v
    return v.model_copy(update={"equivalent": False, "reason": f"not in the form asked for: {why}"})


def _gold_reads(gold: str) -> None:
    """Raise when the gold alone cannot be extracted, parsed and sized (see ``judge``)."""
    g = normalize(extract_gold(gold))
    try:
        node = parse(g)
    except ParseError:
        return  # an unparsable gold is reported by the judge itself, not an exception
    too_large(node)


def _judge_value(gold: str, prediction: str, *, timeout_s: float = 5.0,
                 extract: bool = True, require_box: bool = False, fast_only: bool = False) -> MathVerdict:
    """Is ``prediction`` (a whole response when ``extract``) the same answer as ``gold``?

    ``timeout_s`` is this call's budget for the sympy stage. A prediction that cannot be
    judged within it, or is too large, is NOT equivalent (reason ``timeout`` /
    ``too_large``); ``error`` is set only when the gold cannot be read or the judge
    itself failed. ``require_box``: only a ``\\boxed{}`` answer counts. ``fast_only``: raise
    NeedsWorker instead of calling a sympy worker (the service decides what it can without
    taking a math slot)."""
    pred_ans: str | None = None

    def verdict(equal: bool, reason: str, **kw) -> MathVerdict:
        kw.setdefault("gold_parsed", None)
        kw.setdefault("prediction_parsed", None)
        return MathVerdict(equivalent=equal, extracted=pred_ans, reason=reason, **kw)

    if len(prediction) > MAX_INPUT_CHARS:
        return verdict(False, TOO_LARGE)
    gold_ans = extract_gold(gold)
    pred_ans = (extract_answer(prediction, require_box=require_box) if extract
                else prediction.strip())
    if not gold_ans:
        return verdict(False, "gold answer is empty", error="gold answer is empty")
    if not pred_ans:
        return verdict(False, "no boxed answer found" if require_box else "no answer found")
    if len(pred_ans) > MAX_ANSWER_CHARS:
        return verdict(False, TOO_LARGE)

    option = option_with_value(gold_ans, pred_ans)
    if option is not None:
        pred_ans = option
    if dangling_relation(pred_ans) and not dangling_relation(gold_ans):
        return verdict(False, "prediction is a relation with a missing side, not a value")
    special = _special_forms(gold_ans, pred_ans)
    if special is not None:
        return verdict(special[0], special[1])
    g_text, p_text = text_answer(gold_ans), text_answer(pred_ans)
    if g_text is not None:
        same = g_text == p_text
        return verdict(same, "text answers equal" if same else "text answers differ",
                       gold_parsed=g_text, prediction_parsed=p_text)

    g_norm, p_norm = normalize(gold_ans), normalize(pred_ans)
    approx = bool(_APPROX_RE.search(pred_ans))
    if g_norm == p_norm and g_norm and not approx:
        return verdict(True, "normalised strings equal", gold_parsed=g_norm,
                       prediction_parsed=p_norm)
    try:
        g_node = parse(g_norm)
    except TooLong:
        return verdict(False, "gold too large", error="gold answer is too large to evaluate")
    except ParseError:
        g_node = None  # math-verify may still read it (in the worker)
    if g_node is not None and g_node[0] == "num" and _DECIMAL_COMMA_RE.fullmatch(p_norm) \
            and p_norm.rstrip("0")[-1] != ",":
        # "2,5" against a single number is 2.5; "5,0" is not 5: it was paid for gold 5 and,
        # as a list, for 0, 5 (a policy unsure whether 0 counts would win either way)
        p_norm = p_norm.replace(",", ".")
    g_shown = _fast_render(g_node) if g_node else None
    try:
        p_node = parse(p_norm)
    except TooLong:
        return verdict(False, TOO_LARGE, gold_parsed=g_shown)
    except Ambiguous as exc:
        return verdict(False, f"prediction ambiguous: {exc}", gold_parsed=g_shown)
    except Unsupported as exc:
        bad = unsafe_notation(p_norm)
        if bad is not None:  # the second parser would drop it and read the rest
            return verdict(False, f"prediction unparsable: {exc} ({bad})", gold_parsed=g_shown)
        p_node = None
    except ParseError as exc:  # malformed: no other parser gets to guess what it meant
        return verdict(False, f"prediction unparsable: {exc}", gold_parsed=g_shown)
    if g_node is not None and too_large(g_node):
        return verdict(False, "gold too large", error="gold answer is too large to evaluate")
    if p_node is not None and too_large(p_node):
        return verdict(False, TOO_LARGE, gold_parsed=g_shown)

    if approx and g_node is not None and p_node is not None and _rough(g_node, p_node):
        return verdict(False, "prediction is marked approximate, the gold is exact",
                       gold_parsed=g_shown, prediction_parsed=_fast_render(p_node))
    if g_node is not None and p_node is not None:
        try:
            out = compare(g_node, p_node, FastScalars(approx))
            return verdict(out.equal, out.reason, gold_parsed=g_shown,
                           prediction_parsed=_fast_render(p_node))
        except NeedsSympy:
            pass
    if (g_node is None or p_node is None) and not _REFERENCE:
        if g_node is None:
            return verdict(False, "gold unparsable", error="gold answer could not be parsed")
        return verdict(False, "prediction unparsable", gold_parsed=g_shown)

    if fast_only:
        raise NeedsWorker
    try:
        res = get_pool().call({"gold": g_node, "pred": p_node, "gold_tex": g_norm,
                               "pred_tex": p_norm, "approx": approx}, timeout_s)
    except PoolTimeout:
        return verdict(False, TIMEOUT, timed_out=True)
    except WorkerFailed as exc:
        return verdict(False, "worker failed", error=f"math worker failed: {exc}")
    if res.get("ok"):
        return verdict(bool(res["equal"]), res["reason"], gold_parsed=res.get("gold_parsed"),
                       prediction_parsed=res.get("prediction_parsed"))
    if res.get("kind") == "memory":
        return verdict(False, TOO_LARGE)
    return verdict(False, "comparison failed", error=f"sympy comparison failed: {res.get('error')}")


def _rough(gold: list, pred: list) -> bool:
    """A value the response marks approximate (``\\approx 3``, "about 0.25", ``\\sim 6 \\times
    10^8``) against an exact gold that is not itself a rounded decimal: the response does not
    claim the exact value, and it is not a decimal with the digits the tolerance of
    ``structure.approx_tol`` needs. Not an answer (``\\approx 3.14159`` for pi, and ``\\approx
    3.14`` for a gold of 3.14, still compare)."""
    return not has_decimal(gold) and approx_tol(gold, pred, True) is None


__all__ = ["MathVerdict", "NeedsWorker", "judge", "extract_answer", "get_pool", "set_pool", "shutdown"]
