"""Second parser inside the worker: math-verify (latex2sympy2_extended) on the answers.

Our own parser covers the common answer shapes exactly and fast; math-verify, the field's
maintained LaTeX-to-sympy parser, covers the long tail (``\\sum``, ``cases``, unusual
commands). It only ever sees answers that OUR extraction already chose and OUR
normalisation already rewrote (thousands separators, mixed numbers, labels...), wrapped
in ``$...$``, and it runs only in a killable worker process: its own signal-based
timeouts are switched off because the pool enforces ours.
"""

from __future__ import annotations

import logging
import re

logging.getLogger("math_verify").setLevel(logging.ERROR)  # "timeout disabled" warnings

try:  # a runtime dependency; its absence degrades to our parser alone
    from math_verify import ExprExtractionConfig, LatexExtractionConfig
    from math_verify import parse as _mv_parse
    from math_verify import verify as _mv_verify
except ImportError:  # pragma: no cover - installed with the package
    _mv_parse = None

_CONFIG = None


def available() -> bool:
    return _mv_parse is not None


def _parse(tex: str) -> list:
    global _CONFIG
    if _CONFIG is None:
        _CONFIG = [LatexExtractionConfig(boxed_match_priority=0), ExprExtractionConfig()]
    out = _mv_parse("$" + tex + "$", extraction_config=_CONFIG, parsing_timeout=None)
    return out if any(not isinstance(x, str) for x in out) else []


def reference_compare(gold_tex: str, pred_tex: str) -> dict:
    """{'gold_ok', 'pred_ok', 'equal', 'gold_parsed', 'prediction_parsed'} from math-verify."""
    if not available():
        return {"gold_ok": False, "pred_ok": False, "equal": False}
    g = _parse(gold_tex)
    if not g:
        return {"gold_ok": False, "pred_ok": False, "equal": False}
    p = _parse(pred_tex)
    if not p:
        return {"gold_ok": True, "pred_ok": False, "equal": False, "gold_parsed": str(g[0])}
    equal = bool(_mv_verify(g, p, timeout_seconds=None))
    if equal:
        equal, why = confirm(g[0], p[0], gold_tex, pred_tex)
        if not equal:
            return {"gold_ok": True, "pred_ok": True, "equal": False, "why": why,
                    "gold_parsed": str(g[0])[:500], "prediction_parsed": str(p[0])[:500]}
    return {"gold_ok": True, "pred_ok": True, "equal": equal,
            "gold_parsed": str(g[0])[:500], "prediction_parsed": str(p[0])[:500]}


_LITERAL_RE = re.compile(r"\d+(?:\.\d+)?")
_SUBSCRIPT_RE = re.compile(r"_(?:\{[^{}]*\}|\S)")
_WRAPPED_WORD_RE = re.compile(r"\\(?:text|mathrm|mbox|textrm|operatorname)\s*\{\s*([A-Za-z]*)\s*\}")
_DANGLING_OP_RE = re.compile(r"^\s*(?:\\(?:cup|cap|setminus|cdot|times|div|circ)(?![A-Za-z])|[*/^_])"
                             r"|(?:\\(?:cup|cap|setminus|cdot|times|div)|[-+*/^_])\s*$")
_SCRIPT_GROUP_RE = re.compile(r"[_^]\s*+\{([^{}]*+)\}")


def _no_operand(script: str) -> bool:
    """A sub/superscript with nothing to read in it: ``3^{\\cap}``, ``3^{=}`` (math-verify
    drops it and reads 3: a third review). Degrees and primes are marks, not operands."""
    body = re.sub(r"\\(?:circ|prime)(?![A-Za-z])|'", "x", script)
    body = re.sub(r"\\(?:cap|cup|setminus|pm|mp|times|cdot|div|ast|wedge|vee|left|right)(?![A-Za-z])", " ", body)
    return not re.search(r"[A-Za-z0-9\\]", body)


_COMMAND_RE = re.compile(r"\\([A-Za-z]+)")
# what sympy calls a function or constant written as a LaTeX command
_SYMPY_NAME = {"ln": "log", "arcsin": "asin", "arccos": "acos", "arctan": "atan", "infty": "oo",
               "arcsec": "asec", "arccsc": "acsc", "arccot": "acot", "lfloor": "floor",
               "lceil": "ceiling", "ceil": "ceiling"}


def _lost_name(pred_tex: str, parsed) -> str | None:
    """A function, constant or variable written in the prediction that math-verify's
    reading lacks (it reads a fragment of what it cannot parse: ``\\cup 5 + y`` as 5,
    ``\\operatorname{sech} 5`` as 5, ``\\cup 5\\pi`` as 5: a hostile review)."""
    from verifier.math.latex import FUNCS, GREEK

    shown = str(parsed)
    names = {str(s) for s in getattr(parsed, "free_symbols", set())}
    text = _SUBSCRIPT_RE.sub(" ", pred_tex)
    for m in _WRAPPED_WORD_RE.finditer(text):
        word = m.group(1)
        if word in FUNCS or word in ("sech", "csch", "coth"):
            if _SYMPY_NAME.get(word, word) not in shown:
                return word
        elif word == "e" and "E" not in shown and "e" not in names:
            return word
    text = _WRAPPED_WORD_RE.sub(" ", text)
    for cmd in _COMMAND_RE.findall(text):
        name = _SYMPY_NAME.get(cmd, cmd)
        if cmd in FUNCS or cmd in ("pi", "infty", "coth", "sech", "csch", "arcsec", "arccsc", "arccot"):
            if name not in shown and not (cmd == "sqrt" and "**" in shown):
                return "\\" + cmd
        elif cmd in GREEK and cmd not in names and cmd not in shown:
            return "\\" + cmd
    # variables bound by a sum, product, limit or integral are not in the value
    bound = set(re.findall(r"\\(?:sum|prod|lim)\s*_\s*\{\s*([A-Za-z])", pred_tex))
    if "\\int" in pred_tex:
        bound |= {"d"} | set(re.findall(r"(?<![A-Za-z])d\s*([A-Za-z])", text))
    letters = set(re.findall(r"[A-Za-z]", _COMMAND_RE.sub(" ", text))) - bound
    for letter in sorted(letters):
        if letter in names or any(n.startswith(letter + "_") for n in names):
            continue
        if (letter == "e" and "E" in shown) or (letter == "i" and "I" in shown):
            continue
        return letter
    return None


def _numbers_in(obj) -> set:
    import sympy as sp

    out = set()
    atoms = obj.atoms(sp.Number) if hasattr(obj, "atoms") else set()
    for a in atoms:
        r = sp.nsimplify(a, rational=True) if a.is_Float else a
        out |= {abs(r), abs(sp.Integer(r.p)), abs(sp.Integer(r.q))} if r.is_Rational else {abs(r)}
    return out


def confirm(g, p, gold_tex: str, pred_tex: str) -> tuple[bool, str]:
    """Check a math-verify "equal" with our own rules; (equal, why).

    math-verify is lenient in ways a policy can farm: it reads a fragment of what it cannot
    parse (``\\sum_{k=1}^{1} \\{4, 5\\}`` reads as 5, ``\\neq 5`` as 5), it counts
    a gold found inside a predicted set, and it rounds numbers to 6 digits (1/3 ==
    0.333333). So: every number written in the prediction (outside sub/superscripts) must
    be in what it parsed, a value must be compared with a value of the same kind, and
    values compare with our numeric policy (sympy_backend.values_eq)."""
    import sympy as sp

    from verifier.math.notation import REL_RE
    from verifier.math.sympy_backend import values_eq

    parsed = _numbers_in(p)
    for lit in _LITERAL_RE.findall(_SUBSCRIPT_RE.sub(" ", pred_tex)):
        if abs(sp.Rational(lit)) not in parsed:
            return False, f"math-verify read only part of the prediction (lost {lit})"
    if _DANGLING_OP_RE.search(pred_tex) or any(_no_operand(m.group(1)) for m in _SCRIPT_GROUP_RE.finditer(pred_tex)):
        return False, "an operator with a missing side"
    lost = _lost_name(pred_tex, p)
    if lost is not None:
        return False, f"math-verify read only part of the prediction (lost {lost})"
    g_expr, p_expr = isinstance(g, sp.Expr), isinstance(p, sp.Expr)
    if p_expr and REL_RE.search(pred_tex) and not REL_RE.search(gold_tex):
        return False, "math-verify dropped a relation of the prediction"
    if g_expr and p_expr:
        approx = "." in gold_tex or "." in pred_tex
        out = values_eq(g, p, approx)
        return out.equal, out.reason
    if g_expr != p_expr or type(g).__name__ != type(p).__name__:
        return False, f"different kinds ({type(g).__name__} vs {type(p).__name__})"
    return True, "equal (math-verify)"
