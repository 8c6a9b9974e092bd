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
    return {"gold_ok": True, "pred_ok": True, "equal": equal,
            "gold_parsed": str(g[0])[:500], "prediction_parsed": str(p[0])[:500]}
