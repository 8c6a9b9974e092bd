"""Which LaTeX the second parser (math-verify) may see in a prediction.

math-verify silently drops commands it does not know: ``\\not 5``, ``\\cancel{6} 5`` and
``\\operatorname{foo} 5`` all read as 5 there. A prediction our parser cannot read goes to
it only when every command in it is one it reads faithfully; otherwise the prediction is
judged as written (not equivalent).
"""

from __future__ import annotations

import re

from verifier.math.latex import _PRIMARY_CMDS, _REL_OPS, FUNCS, GREEK

_SECOND_PARSER_CMDS = (
    {"\\" + f for f in FUNCS | GREEK} | _PRIMARY_CMDS | set(_REL_OPS) | {
        "\\cdot", "\\times", "\\div", "\\pm", "\\mp", "\\cup", "\\cap", "\\setminus", "\\in",
        "\\end", "\\left", "\\right", "\\text", "\\sum", "\\prod", "\\rfloor", "\\rceil",
        "\\arcsec", "\\arccsc", "\\arccot", "\\coth", "\\sech", "\\csch", "\\mathrm"})
_SECOND_PARSER_ENVS = {"pmatrix", "bmatrix", "matrix", "vmatrix", "Bmatrix", "smallmatrix",
                       "array", "cases"}


def unsafe_notation(text: str) -> str | None:
    """The first command in ``text`` the second parser would misread, or None."""
    for m in re.finditer(r"\\[a-zA-Z]+", text):
        cmd = m.group(0)
        if cmd not in _SECOND_PARSER_CMDS:
            return cmd
        if cmd in ("\\sum", "\\prod") and not re.match(r"\s*_", text[m.end():]):
            return cmd + " without bounds"
        if cmd == "\\mathbb" and not re.match(r"\s*\{\s*R\s*\}", text[m.end():]):
            return cmd
        if cmd == "\\operatorname":
            name = re.match(r"\s*\{\s*([A-Za-z]+)\s*\}", text[m.end():])
            if not name or name.group(1) not in FUNCS | {"lcm", "gcd", "sech", "csch"}:
                return cmd
        if cmd in ("\\begin", "\\end"):
            env = re.match(r"\s*\{\s*([A-Za-z*]+)\s*\}", text[m.end():])
            if not env or env.group(1) not in _SECOND_PARSER_ENVS:
                return cmd + (f"{{{env.group(1)}}}" if env else "")
    return None


# relation operators (not "=" and not the approximation marks: "= 5" and "\\approx 3.14"
# name a value)
REL_RE = re.compile(
    r"(?:\\(?:neq|ne|leq|le|geq|ge|lt|gt|leqslant|geqslant|lesssim|gtrsim|nless|ngtr|nleq|"
    r"ngeq|not|equiv|propto|prec|succ|preceq|succeq|subset|supset|subseteq|supseteq|ll|gg|"
    r"in|notin)(?![a-zA-Z])|[<>≤≥≠∈]|!=)")
# what typesets as nothing: a policy can put it before a relation to hide the missing side
_INVISIBLE_RE = re.compile(
    r"\\(?:quad|qquad|displaystyle|textstyle|scriptstyle|relax|left\.|right\.|[,:;! ])"
    r"|\\(?:mathrm|text|mbox|textrm|operatorname|mathbf|phantom|hspace|vspace)\s*\{[^{}]*\}"
    r"|\{\s*\}|~|\\(?=\s)")
_DANGLING_RE = re.compile(r"^\s*" + REL_RE.pattern + r"|" + REL_RE.pattern + r"\s*$"
                          r"|[,;(\[{=]\s*" + REL_RE.pattern + r"|" + REL_RE.pattern
                          + r"\s*[,;)\]}]|\\approx\s*" + REL_RE.pattern)


def dangling_relation(text: str) -> bool:
    """A relation with a missing side ("\\neq 5", "\\le 5", "5 <", "\\{1, \\le 2\\}")
    states no value: it is not the number next to it."""
    t = _INVISIBLE_RE.sub(" ", text)
    t = re.sub(r"^\s*\\(?:sum|prod)\s*_\s*\{[^{}]*\}\s*\^\s*(?:\{[^{}]*\}|\S)", " ", t)
    return bool(_DANGLING_RE.search(t))
