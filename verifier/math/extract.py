"""Pull the final answer out of a whole model response.

Order of preference, each taking the LAST occurrence in the text because models often
restate or correct themselves before finishing:

1. ``\\boxed{...}`` / ``\\fbox{...}`` (nested braces matched, ``\\boxed 5`` accepted);
2. ``#### X`` (GSM8K style);
3. "final answer is X", "the answer is X", "Final Answer: X", "Answer: X";
4. the whole text when it is short and has no prose (it already is an answer);
5. the last number in the text.

Step 5 is a deliberate, documented fallback for free-form responses only. It is never
used to rescue an answer that was found but cannot be parsed: that answer is judged as
written (and fails), see ``judge.py``.
"""

from __future__ import annotations

import re

_PHRASE_RE = re.compile(
    r"(?:final\s+answer\s*(?:is|:)|the\s+answer\s+is|answer\s*:|answer\s+is)\s*:?\s*",
    re.IGNORECASE,
)
_GSM_RE = re.compile(r"####\s*(.+)")
# A number as people write it: sign, thousands groups, decimals, a fraction a/b.
_NUMBER_RE = re.compile(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?(?:/\d+)?|-?\.\d+")
_PROSE_RE = re.compile(r"[A-Za-z]{3,}")
_MATH_WORDS = {
    "sin", "cos", "tan", "cot", "sec", "csc", "log", "exp", "sqrt", "frac", "dfrac",
    "tfrac", "text", "infty", "cdot", "times", "pmatrix", "bmatrix", "begin", "end",
    "left", "right", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "circ",
    "mathrm", "mbox", "pi", "cup", "cap", "leq", "geq", "neq", "boxed", "binom",
    "dbinom", "lfloor", "rfloor", "lceil", "rceil", "quad", "and", "or", "mathbb",
    "emptyset", "varnothing", "displaystyle", "theta", "alpha", "beta", "gamma",
    "delta", "lambda", "sigma", "omega", "matrix", "vmatrix", "degree", "div", "pmod",
    "array", "smallmatrix", "bmatrix", "inf", "infinity", "sqrt", "mathbb", "emptyset",
}


def _brace_pairs(text: str) -> dict[int, int]:
    """Map each ``{`` index to its matching ``}`` index in one pass (escaped braces
    skipped). One pass keeps extraction linear even for thousands of unclosed boxes."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in "{}":
            i += 2
            continue
        if ch == "{":
            stack.append(i)
        elif ch == "}" and stack:
            pairs[stack.pop()] = i
        i += 1
    return pairs


_BOX_RE = re.compile(r"\\(?:boxed|fbox)(?![a-zA-Z])\s*")


def last_boxed(text: str) -> str | None:
    """Content of the last ``\\boxed{...}``/``\\fbox{...}`` in ``text``, or None."""
    if "\\boxed" not in text and "\\fbox" not in text:
        return None
    pairs = _brace_pairs(text)
    for m in reversed(list(_BOX_RE.finditer(text))):
        j = m.end()
        if j < len(text) and text[j] == "{":
            end = pairs.get(j)
            if end is None:
                continue
            return text[j + 1 : end].strip()
        tok = re.match(r"[^\s$]+", text[j:])  # "\\boxed 5": one token
        if tok:
            return tok.group(0).strip()
    return None


def _clean_phrase_answer(raw: str) -> str:
    """Cut a phrase answer at the end of its line/sentence and drop wrapping $ and '.'."""
    line = raw.split("\n", 1)[0]
    # a sentence ends at ". " (but not a decimal point like 3.5)
    m = re.search(r"\.(?:\s|$)(?!\d)", line)
    if m:
        line = line[: m.start()]
    line = line.strip().strip("*").strip().strip("$").strip()  # markdown bold, math mode
    for wrap in (("\\(", "\\)"), ("\\[", "\\]")):
        if line.startswith(wrap[0]) and line.endswith(wrap[1]):
            line = line[2:-2].strip()
    return line.rstrip(".").strip()


def looks_like_bare_answer(text: str) -> bool:
    """True when ``text`` is short and has no prose words (it is an answer already)."""
    t = text.strip()
    if not t or len(t) > 200 or "\n" in t:
        return False
    if not re.search(r"\d", t) and len(t.split()) <= 3 and not re.search(r"[.!?]\s", t):
        return True  # a word answer such as "Devon" or "yes"
    t = re.sub(r"\\[a-zA-Z]+", " ", t)  # LaTeX commands are not prose
    words = [w.lower() for w in _PROSE_RE.findall(t)]
    return all(w in _MATH_WORDS for w in words)


def extract_answer(text: str) -> str | None:
    """The final answer written in a response, or None when it holds none."""
    if not text or not text.strip():
        return None
    boxed = last_boxed(text)
    if boxed is not None:
        return boxed
    gsm = list(_GSM_RE.finditer(text))
    if gsm:
        return _clean_phrase_answer(gsm[-1].group(1))
    phrases = list(_PHRASE_RE.finditer(text))
    if phrases:
        ans = _clean_phrase_answer(text[phrases[-1].end() :])
        if ans:
            return ans
    if looks_like_bare_answer(text):
        return text.strip().strip("$").strip()
    nums = _NUMBER_RE.findall(text)
    if nums:
        return nums[-1]
    return None


def extract_gold(text: str) -> str:
    """The gold answer: a boxed or ``####`` answer inside a worked solution, else all of it."""
    boxed = last_boxed(text)
    if boxed is not None:
        return boxed
    gsm = list(_GSM_RE.finditer(text))
    if gsm:
        return _clean_phrase_answer(gsm[-1].group(1))
    return text.strip()
