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
