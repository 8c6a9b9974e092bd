"""``judge(gold, prediction)``: extract, normalise, parse, compare, with a hard timeout.

Flow: extract the answer -> normalise both strings -> equal strings win at once -> parse
both into the AST -> compare in-process with exact rationals (fast path) -> otherwise
compare with sympy in a worker process that is killed at ``timeout_s``.

"Not equivalent" and "could not judge" stay apart: a prediction that cannot be parsed is
not equivalent (``error`` None); a gold answer that cannot be parsed, a crashed worker or
an unexpected sympy failure sets ``error`` (the caller reports an internal error).
"""

from __future__ import annotations

import atexit
import json
import threading

from pydantic import BaseModel, Field

from verifier.math.extract import extract_answer, extract_gold
from verifier.math.fastnum import FastScalars, fraction_str, to_fraction
from verifier.math.latex import ParseError, parse
from verifier.math.normalize import normalize, text_answer
from verifier.math.pool import PoolTimeout, WorkerFailed, WorkerPool
from verifier.math.structure import NeedsSympy, compare

MAX_INPUT_CHARS = 200_000


class MathVerdict(BaseModel):
    """The judgement of one prediction against one gold answer."""

    equivalent: bool = Field(description="True when the prediction's answer equals the gold")
    extracted: str | None = Field(description="answer pulled from the prediction text")
    gold_parsed: str | None = Field(description="parsed gold answer (sympy str form)")
    prediction_parsed: str | None = Field(description="parsed prediction (sympy str form)")
    reason: str = Field(description="why, e.g. 'numeric equal within rel 1e-9'")
    error: str | None = Field(default=None, description="internal failure: no verdict")
    timed_out: bool = Field(default=False, description="comparison exceeded timeout_s")


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


def judge(gold: str, prediction: str, *, timeout_s: float = 5.0,
          extract: bool = True) -> MathVerdict:
    """Is ``prediction`` (a whole response when ``extract``) the same answer as ``gold``?"""
    for name, val in (("gold", gold), ("prediction", prediction)):
        if not isinstance(val, str):
            raise TypeError(f"{name} must be a str, got {type(val).__name__}")
        if len(val) > MAX_INPUT_CHARS:
            raise ValueError(f"{name} is longer than {MAX_INPUT_CHARS} characters")
    if not timeout_s > 0:
        raise ValueError(f"timeout_s must be > 0, got {timeout_s}")

    def verdict(equal: bool, reason: str, **kw) -> MathVerdict:
        kw.setdefault("gold_parsed", None)
        kw.setdefault("prediction_parsed", None)
        return MathVerdict(equivalent=equal, extracted=pred_ans, reason=reason, **kw)

    gold_ans = extract_gold(gold)
    pred_ans = extract_answer(prediction) if extract else prediction.strip()
    if not gold_ans:
        return verdict(False, "gold answer is empty", error="gold answer is empty")
    if not pred_ans:
        return verdict(False, "no answer found")

    g_text, p_text = text_answer(gold_ans), text_answer(pred_ans)
    if g_text is not None:
        same = g_text == p_text
        return verdict(same, "text answers equal" if same else "text answers differ",
                       gold_parsed=g_text, prediction_parsed=p_text)

    g_norm, p_norm = normalize(gold_ans), normalize(pred_ans)
    if g_norm == p_norm and g_norm:
        return verdict(True, "normalised strings equal", gold_parsed=g_norm,
                       prediction_parsed=p_norm)
    try:
        g_node = parse(g_norm)
    except ParseError as exc:
        return verdict(False, "gold unparsable", error=f"gold answer could not be parsed: {exc}")
    try:
        p_node = parse(p_norm)
    except ParseError as exc:
        return verdict(False, f"prediction unparsable: {exc}", gold_parsed=_fast_render(g_node))

    try:
        out = compare(g_node, p_node, FastScalars())
        return verdict(out.equal, out.reason, gold_parsed=_fast_render(g_node),
                       prediction_parsed=_fast_render(p_node))
    except NeedsSympy:
        pass

    try:
        res = get_pool().call({"gold": g_node, "pred": p_node}, timeout_s)
    except PoolTimeout:
        return verdict(False, "timeout", timed_out=True)
    except WorkerFailed as exc:
        return verdict(False, "worker failed", error=f"math worker failed: {exc}")
    if res.get("ok"):
        return verdict(bool(res["equal"]), res["reason"], gold_parsed=res["gold_parsed"],
                       prediction_parsed=res["prediction_parsed"])
    if res.get("kind") == "memory":
        return verdict(False, f"resource limit ({res['error']})", timed_out=True)
    return verdict(False, "comparison failed", error=f"sympy comparison failed: {res.get('error')}")


__all__ = ["MathVerdict", "judge", "extract_answer", "get_pool", "set_pool", "shutdown"]
