"""String clean-up of an answer before it is tokenised.

Policies decided here (documented in docs of ``verifier.math``):

* degrees: ``30^\\circ``, ``30°``, ``30 degrees`` all become ``30``; no radian conversion.
* units and words in ``\\text{...}``/``\\mbox``/``\\mathrm`` (cm, dollars, ...) are dropped,
  as are a few plain unit words after a number; ``\\$`` and ``$`` are dropped.
* thousands separators: ``1,000,000`` (whole answer), ``1{,}000`` and ``1\\,000`` become
  ``1000``; a comma elsewhere separates list items.
* ``\\dfrac``/``\\tfrac`` are ``\\frac``; ``\\left``/``\\right``/spacing commands vanish.
"""

from __future__ import annotations

import re

_UNICODE = {
    "−": "-", "–": "-", "×": "\\times ", "·": "\\cdot ", "÷": "\\div ", "π": "\\pi ",
    "∞": "\\infty ", "≤": "\\le ", "≥": "\\ge ", "≠": "\\ne ", "√": "\\sqrt ", "∪": "\\cup ",
    "°": "^\\circ", "…": "", "\u00a0": " ", "\u2009": " ", "\u202f": " ",
}
_UNIT_WORDS = (
    r"(?:square\s+|sq\.?\s+|cubic\s+)?(?:units?|cm|mm|km|m|meters?|metres?|centimeters?|"
    r"millimeters?|kilometers?|inch(?:es)?|in|feet|foot|ft|yards?|yd|miles?|mi|mph|kg|g|"
    r"grams?|kilograms?|pounds?|lbs?|ounces?|oz|liters?|litres?|ml|L|seconds?|sec|s|"
    r"minutes?|min|hours?|hrs?|h|days?|weeks?|months?|years?|dollars?|cents?|degrees?|"
    r"deg|radians?|rad|people|students|apples|cookies|marbles|points?|percent)"
)
# unit words only removed after a number/brace/bracket and a space (never "5m" alone)
_TRAILING_UNITS_RE = re.compile(
    r"(?<=[\d}\)\]])\s+(?:" + _UNIT_WORDS + r")(?:\s*\^\s*\{?\d\}?|\d)?(?:\s+" + _UNIT_WORDS
    + r")*\.?\s*$"
)
_TEXT_CMD_RE = re.compile(r"\\(?:text|textbf|textit|textrm|mbox|mathrm|textnormal|mathit)\s*\{")
_THOUSANDS_WHOLE_RE = re.compile(r"^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$")
_THOUSANDS_PREFIX_RE = re.compile(r"^(-?\d{1,3}(?:,\d{3})+(?:\.\d+)?)(\s*[%a-zA-Z\\].*)$")
# words, or a unit like m/s^2 or km/h (letters with / ^ and small powers)
_UNITISH_RE = re.compile(r"[A-Za-z][A-Za-z .']*(?:\s*[/^]\s*\{?[A-Za-z0-9]+\}?)*")
_SPACING_RE = re.compile(r"(?<!\\)\\(?:quad|qquad|[,;:! ])|~")
_WRAPPERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))


def _replace_text_commands(s: str) -> str:
    """Replace ``\\text{...}`` by its content, or by nothing when it is a unit/word."""
    out = []
    i = 0
    while True:
        m = _TEXT_CMD_RE.search(s, i)
        if not m:
            out.append(s[i:])
            break
        out.append(s[i : m.start()])
        depth, j = 1, m.end()
        while j < len(s) and depth:
            depth += {"{": 1, "}": -1}.get(s[j], 0)
            j += 1
        content = s[m.end() : j - 1].strip()
        low = content.lower().strip(" .")
        if low in ("or", "and", ",", "or,"):
            out.append(f" {low} ")
        elif _UNITISH_RE.fullmatch(content) and not _is_whole(s, m.start(), j):
            # a unit or word beside math: drop it and a power right after it (cm^2)
            tail = re.match(r"\s*\^\s*(?:\{\s*\d+\s*\}|\d)", s[j:])
            if tail:
                j += tail.end()
            out.append(" ")
        else:
            out.append(" " + content + " ")
        i = j
    return "".join(out)


def _is_whole(s: str, start: int, end: int) -> bool:
    """True when the \\text{...} spanning [start, end) is the whole answer."""
    return not s[:start].strip() and not s[end:].strip()


def _balanced(s: str) -> bool:
    depth = 0
    for i, ch in enumerate(s):
        if ch in "{}" and i and s[i - 1] == "\\":
            continue
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def strip_wrappers(s: str) -> str:
    """Remove math-mode delimiters around the whole answer."""
    s = s.strip()
    changed = True
    while changed:
        changed = False
        for a, b in _WRAPPERS:
            if len(s) >= len(a) + len(b) and s.startswith(a) and s.endswith(b):
                s = s[len(a) : len(s) - len(b)].strip()
                changed = True
    return s


def normalize(s: str) -> str:
    """Canonical spelling of an answer string; raises nothing, may return ''."""
    for k, v in _UNICODE.items():
        s = s.replace(k, v)
    s = strip_wrappers(s)
    m = re.fullmatch(r"\\(?:boxed|fbox)\s*\{(.*)\}", s, re.S)
    if m and _balanced(m.group(1)):  # an already-extracted answer still in its box
        s = strip_wrappers(m.group(1))
    s = s.replace("\\lbrace", "\\{").replace("\\rbrace", "\\}")
    s = s.replace("\\lvert", "|").replace("\\rvert", "|")
    s = s.replace("\\displaystyle", " ").replace("\\limits", "")
    s = re.sub(r"\\[dt]frac", r"\\frac", s)
    s = re.sub(r"\\[dt]binom", r"\\binom", s)
    s = re.sub(r"\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big)\s*\.", " ", s)
    s = re.sub(r"\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big)(?![a-zA-Z])", "", s)
    s = re.sub(r"\\(?:mathbf|boldsymbol|bm|mathbfit)\s*", "", s)
    # degrees
    s = re.sub(r"\^\s*\{?\s*\\circ\s*\}?", "", s)
    s = re.sub(r"\\degree|\\circ", "", s)
    s = s.replace("\\%", "%").replace("\\$", " ").replace("$", " ")
    # thousands separators written the LaTeX way
    s = re.sub(r"(\d)\{,\}(?=\d{3})", r"\1", s)
    s = re.sub(r"(\d)\\[,!;: ](?=\d{3}(?!\d))", r"\1", s)
    s = _replace_text_commands(s)
    s = _SPACING_RE.sub(" ", s)
    s = s.strip()
    s = re.sub(r"\\?\.\s*$", "", s).strip()  # trailing full stop
    s = _TRAILING_UNITS_RE.sub("", s).strip()
    s = re.sub(r"^[a-zA-Z]\s*\\in(?![a-zA-Z])\s*", "", s)  # "x \in [1, 2)" is the set
    if _THOUSANDS_WHOLE_RE.match(s):
        s = s.replace(",", "")
    else:
        m = _THOUSANDS_PREFIX_RE.match(s)
        if m:
            s = m.group(1).replace(",", "") + m.group(2)
    return re.sub(r"\s+", " ", s).strip()


def text_answer(s: str) -> str | None:
    """The lower-cased words when the answer is prose (a name, yes/no), else None."""
    t = strip_wrappers(s.strip())
    m = re.fullmatch(r"\\(?:text|textbf|mbox|mathrm|textnormal)\s*\{([^{}]*)\}", t)
    if m:
        t = m.group(1)
    t = t.strip().strip(".").strip()
    if re.fullmatch(r"[A-Za-z][A-Za-z '\-]*", t) and re.search(r"[A-Za-z]{3,}", t):
        from verifier.math.latex import is_math_word

        words = re.findall(r"[A-Za-z]+", t)
        if all(is_math_word(w) for w in words):
            return None
        return " ".join(w.lower() for w in words)
    return None
