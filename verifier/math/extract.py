"""Pull the final answer out of a whole model response (the extraction policy).

A prediction's final answer is taken from the first of these that the text has:

1. ``\\boxed{...}`` / ``\\fbox{...}`` (nested braces matched, ``\\boxed 5`` accepted): the
   LAST box, together with the boxes right before it that are separated from it only by
   spaces, commas, ``$`` or "and"/"or" (``\\boxed{1}, \\boxed{2}`` is the answer "1, 2").
   Earlier boxes followed by prose are drafts the model corrected; a box repeated
   verbatim counts once.
2. ``#### X`` (GSM8K style), the last one;
3. an answer phrase, the last one: "final answer is X", "Final Answer: X", "the answer is X",
   "Answer: X"; markdown bold (``**Answer:** **18**``) is ignored. X runs to the end of its
   sentence or line;
4. the whole text when it is short and has no prose (it already is an answer);
5. the concluding statement (``verifier.math.conclusion``): the last math span, or a value
   the last sentence states in prose, unless hedged, listed as candidates or disowned.

Nothing else: no "last number anywhere in the text" (prose like ``AZYUK2A`` must not become
an answer by accident). With ``require_box=True`` only step 1 counts.

A prediction that ends up naming several answers ("3 or 4", two adjacent boxes) is a
list; against a single gold answer it is wrong (see ``structure.compare``).

The gold answer keeps ALL its boxes (a worked solution ``\\boxed{1}\\boxed{2}`` has the
two answers 1 and 2); without a box it is its ``#### X`` or the whole text.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata

from verifier.math.claims import date_answer

# Answer phrases in the languages models answer in besides English (out-of-sample check 8:
# "La réponse finale est 6.25.", "La respuesta final es ...", "Die Antwort lautet 1163.",
# "综上所述，答案是 -46。" were refused). Matched after ``plain_letters``: Cyrillic look-alikes
# are Latin by then ("Ответ" reads "Oтвeт").
OTHER_LANGUAGE_PHRASES = (
    r"(?:la\s+)?r[ée]ponse(?:\s+finale)?\s*(?:est\b|:)|(?:la\s+)?respuesta(?:\s+final)?\s*(?:es\b|:)"
    r"|(?:a\s+)?resposta(?:\s+final)?\s*(?:é|:)|(?:la\s+)?risposta(?:\s+finale)?\s*(?:è|:)"
    r"|(?:die\s+)?(?:endg[üu]ltige\s+)?antwort\s*(?:lautet\b|ist\b|:)|o[тt][вb]e[тt]\s*(?:[:—–-]|\bpaвeн\b)"
    r"|(?:最终|最終)?答案\s*(?:是|为|為|：|:)|答え\s*(?:は|：|:)")
_PHRASE_RE = re.compile(
    r"(?:final\s+answer\s*(?:is|:)|the\s+answer\s+is|answer\s*:|answer\s+is|" + OTHER_LANGUAGE_PHRASES
    # a heading line that is only "Answer" ("### Answer", "**Final Answer**"): the next line holds it
    + r"|(?m:^[ \t]*+(?:\#{1,6}[ \t]*+)?(?:final[ \t]+)?answer[ \t]*+:?[ \t]*+$)"
    + r")\s*[:：]?\s*",
    re.IGNORECASE,
)
# the phrase stands inside a text group of its own: ``\textbf{Final Answer:} 5``
_TEXT_CMD = r"\\(?:text|textbf|textit|textrm|mathrm|mathbf|mbox)"
_TEXT_OPEN_RE = re.compile(_TEXT_CMD + r"\s*+\{[^{}]*+$")
_DOLLAR_RE = re.compile(r"(?<!\\)\$")
_GSM_RE = re.compile(r"####\s*(.+)")
_PROSE_RE = re.compile(r"[A-Za-z]{3,}")
# markdown bold/italic markers: ``**`` not between two word characters (``x**2`` stays)
_BOLD_RE = re.compile(r"(?<![\w)])\*\*|\*\*(?![\w(])|(?<!\w)__|__(?!\w)")
_BOX_GLUE_RE = re.compile(r"(?:\s|\$|,|;|\\quad|\\qquad|\\text\{\s*(?:and|or)\s*\}|\band\b|\bor\b)*")
_MATH_WORDS = {
    "sin", "cos", "tan", "cot", "sec", "csc", "log", "exp", "sqrt", "frac", "dfrac",
    "tfrac", "cfrac", "text", "infty", "cdot", "times", "pmatrix", "bmatrix", "begin", "end",
    "left", "right", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "circ",
    "mathrm", "mbox", "pi", "cup", "cap", "leq", "geq", "neq", "boxed", "binom",
    "dbinom", "lfloor", "rfloor", "lceil", "rceil", "quad", "and", "or", "mathbb",
    "emptyset", "varnothing", "displaystyle", "theta", "alpha", "beta", "gamma",
    "delta", "lambda", "sigma", "omega", "matrix", "vmatrix", "degree", "div", "pmod",
    "array", "smallmatrix", "inf", "infinity", "approx", "cases", "sum", "prod",
    "approximately", "about", "roughly",
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
# "\\boxed 5": one token, which ends before the next box command (else each of k unbraced
# boxes in a row took the rest of the text: quadratic time and memory)
_BOX_TOKEN_RE = re.compile(r"(?:(?!\\(?:boxed|fbox)(?![a-zA-Z]))[^\s$])+")


def all_boxed(text: str) -> list[tuple[int, int, str]]:
    """Every closed ``\\boxed``/``\\fbox`` as (start, end, content), in text order."""
    if "\\boxed" not in text and "\\fbox" not in text:
        return []
    pairs = _brace_pairs(text)
    out = []
    for m in _BOX_RE.finditer(text):
        j = m.end()
        if j < len(text) and text[j] == "{":
            end = pairs.get(j)
            if end is not None:
                out.append((m.start(), end + 1, text[j + 1 : end].strip()))
            continue
        tok = _BOX_TOKEN_RE.match(text, j)  # "\\boxed 5": one token
        if tok:
            out.append((m.start(), tok.end(), tok.group(0).strip()))
    # A box nested in another box is part of it, not a separate answer. The boxes come in
    # order of their starts, so an earlier one contains this one iff it ends at or after it.
    kept, reach = [], -1
    for b in out:
        if b[1] > reach:
            kept.append(b)
        reach = max(reach, b[1])
    return kept


def last_boxed(text: str) -> str | None:
    """Content of the last ``\\boxed{...}``/``\\fbox{...}`` in ``text``, or None."""
    boxes = all_boxed(text)
    return boxes[-1][2] if boxes else None


# Between two boxes: no prose (a word other than and/or/vs) and no relation, only spacing,
# punctuation, line breaks and alignment: the boxes are one group of answers. (\boxed{4}~\boxed{3}
# and \boxed{4} \\ \boxed{3} paid the last box: hostile review.)
_GAP_TEXT_RE = re.compile(r"\\(?:text|textrm|textnormal|mbox|mathrm)\s*\{([^{}]*)\}")
_GAP_WORDS = {"and", "or", "vs", "versus", "lor", "vee", "resp", "respectively", "else", "otherwise", "xor",
              "either",
              # "or" in other languages ("Entweder \\boxed{5} oder \\boxed{7}" paid the 7: a hostile review)
              "oder", "entweder", "bzw", "beziehungsweise", "ou", "soit", "o", "u", "oppure", "lub", "albo",
              "eller", "veya", "ya", "atau", "nebo", "vagy", "ili", "vel", "hoặc", "или", "либо", "або",
              "或", "或者", "または", "か", "또는",
              # a seventh review's: Greek, Hindi, Arabic, Hebrew, Turkish, Finnish, Korean, Thai,
              # Romanian, Chinese, Japanese, and compounds (ou então, или же, und/oder, et/ou)
              "ή", "या", "أو", "או", "da", "tai", "혹은", "หรือ", "sau", "还是", "要么", "あるいは",
              "então", "же", "und", "et", "y", "e", "i", "og", "en", "ve", "ja",
              "au", "või", "vai", "arba", "alebo", "ან", "կամ", "немесе", "yoki", "ወይም", "anders",
              "ossia", "ovvero", "sinon", "sonst", "ama", "eli", "tahi", "ali",
              "bien", "auch", "alternately", "alternatively", "failing", "that", "instead"}
# A box with arithmetic or notation right against it is part of a larger expression or
# relation: -\boxed{3}, \boxed{3}0, $\boxed{3}+1$, \frac{1}{\boxed{3}}, \boxed{3}.5, \boxed{2}\pi,
# x > \boxed{3}, "not \boxed{3}" are not 3 (a bullet "- \boxed{3}" at a line start is fine).
# Decided on the text next to the box after trimming what typesets as nothing, never by a
# pattern run over the whole line: a policy can pad with any amount of spacing (a regex
# with two stars over the spaces before a box took 109 s for 200 KB of them: hostile review).
# what typesets as nothing around a box: spacing, math-mode delimiters
_INVISIBLE_TOKENS = ("\\qquad", "\\quad", "\\,", "\\;", "\\:", "\\!", "\\ ", "\\(", "\\[", "**", "$", "~")
_INVISIBLE_RUN_RE = re.compile(r"(?:\s++|\\(?:qquad|quad|[,;:! ])|\\[)\]]|\*\*|[$~])*+")
_MATH_SPACING_RE = re.compile(r"\\(?:qquad|quad|[,;:!])")
_GREEK_NAMES = ("alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|vartheta|iota|kappa|lambda|mu|nu|xi|"
                "rho|sigma|tau|upsilon|phi|varphi|chi|psi|omega|Gamma|Delta|Theta|Lambda|Sigma|Phi|Psi|Omega")
# notation before a box that makes it an operand, whatever spacing lies between
_OPERAND_BEFORE_RE = re.compile(
    r"(?:\S\s*+(?:[-+/×·÷]|(?<!\*)\*|\\(?:pm|mp|cdot|times|div|ast))|[−±∓√∛∜]|[\d^_{|]|\d\.|[<>≠≤≥∝≡]|[!<>]=|=<|=>"
    r"|[≧≦⩽⩾≱≰≮≯≪≫‹›≺≻≼≽]|\\(?:geqq|leqq|gneqq?|lneqq?|gg|ll|ngeq|nleq|ngtr|nless|succ|prec|succeq|preceq)"
    r"|\\left\s*+[(\[|]|[-+−±]\s*+\(|\\sqrt\s*+\[|&[a-z]++;"
    r"|\\(?:neq?|leq?|geq?|lt|gt|leqslant|geqslant|not|notin|lnot|neg|propto|equiv|sim|cong|pi|sqrt"
    r"|frac|dfrac|tfrac|cdot|times|div|pm|mp|ast|log|ln|lg|exp|sin|cos|tan|sec|csc|cot|arcsin|arccos"
    r"|arctan|sinh|cosh|tanh|lfloor|lceil|lvert|vert|binom|sum|prod|int|lim|max|min|gcd|lcm|det|"
    + _GREEK_NAMES + r"))$")
# words right before a box that negate it or change its value ("not \boxed{3}", "minus \boxed{3}")
# (negations are _negated_before's)
_WORD_BEFORE = {"negative", "minus", "over", "twice", "thrice", "double", "triple", "half", "than",
                "least", "most", "except", "from", "of", "root", "inverse", "reciprocal", "under",
                "below", "above", "without", "besides", "excluding", "unlike",
                # a fourth review's: bounds, ranges and exceptions ("about \\boxed{3}" and the like
                # are read as approximations instead: _APPROX_BEFORE_RE)
                "exceeds", "exceed", "upto", "near", "but",
                "between", "through", "thru", "till", "until", "unequal", "nonequal", "excludes",
                "exclude", "differs", "beyond", "past", "within"}
# two words right before a box that bound it ("up to \boxed{3}", "capped at \boxed{3}")
_TWO_WORDS_BEFORE = {("up", "to"), ("capped", "at"), ("bounded", "by"), ("divisible", "by"),
                     ("close", "to"), ("limited", "to"), ("multiple", "of"), ("divisor", "of"),
                     ("power", "of"), ("factor", "of"), ("unequal", "to"), ("nonequal", "to"),
                     ("different", "to"), ("opposed", "to"), ("compared", "to"), ("prior", "to")}
# notation after a box that makes it an operand, whatever spacing lies between
_OPERAND_AFTER_RE = re.compile(
    r"\d|\.\d|,\d{3}|[-+*/^_]\s*+(?:\d|\\(?!circ)|\(|\{(?!\s*+\\circ))|\\(?:cdot|times|div|ast)(?![a-zA-Z])"
    r"|\\(?:sqrt|frac|dfrac|tfrac|pi|sin|cos|tan|log|ln|exp|binom|bmod|mod|pmod|choose|over|atop"
    r"|textsuperscript|cdots|ldots|dots|overline)(?![a-zA-Z])|!(?![\s.,;:?]|$)|!!"
    r"|[×·÷⁄∗²³¹⁰⁴⁵⁶⁷⁸⁹½¼¾⅓⅔⅛…<>≠≤≥]|\.\.\.|\{\s*+\}\s*+[\^_]|&[a-z]++;"
    r"|\s*+(?:\\right\s*+)?[)}\]|]\s*+(?:[\^_!]|\\(?:cdot|times|div)(?![a-zA-Z])|[-+*/]\s*+[\d(\\])")
# words after a box that continue the sentence, not the number ("\boxed{3} and we are done")
_SENTENCE_GOES_ON = {"and", "to", "of", "by", "at", "in", "for", "as"}
_NEAR = 64  # characters next to a box that decide, after trimming what typesets as nothing
_TEXT_GROUP_END_RE = re.compile(r"\\(?:text|textbf|textit|textrm|mathrm|mathbf|mbox|textnormal)\s*+\{[^{}]*+\}$")


# a style command that wraps the box or colours it (an out-of-sample probe's "$\\mathbf{\\boxed{-17}}$")
_STYLE_WRAPPER_RE = re.compile(r"\\(?:mathbf|textbf|bm|boldsymbol|pmb|mathrm|textrm|mathit|textit|emph|"
                               r"underline|large|Large|LARGE|huge|Huge|displaystyle)\s*+\{\s*+$"
                               r"|\\(?:color|textcolor)\s*+\{[A-Za-z!\d]{1,20}\}\s*+\{?\s*+$")


def _trim_back(text: str, lo: int, i: int) -> int:
    """Index before the run of spacing/delimiters that ends at ``i`` (one step a token:
    linear, whatever padding a policy writes)."""
    while i > lo:
        if text[i - 1].isspace():
            i -= 1
            continue
        for tok in _INVISIBLE_TOKENS:
            if text.endswith(tok, lo, i):
                i -= len(tok)
                break
        else:
            return i
    return i


def _last_words(near: str, n: int = 2) -> list[str]:
    """The last ``n`` words of ``near`` (lower case), markdown, quotes and brackets aside."""
    return [w.lower() for w in re.findall(r"[A-Za-z']+", near[-48:])[-n:]]


_NEGATIONS = {"not", "never", "cannot", "can't", "hardly", "nor", "isn't", "wasn't", "aren't", "no"}
_COPULAS = {"be", "is", "was", "equal", "equals", "being"}


def _negated_before(text: str, start: int) -> bool:
    """Does a negation stand right before ``start`` ("not \\boxed{3}", "It cannot be $3$",
    "not\n\\boxed{3}"), or an "or" that makes it the second of two answers?"""
    i = _trim_back(text, 0, start)
    words = _last_words(text[max(0, i - 48):i], 2)
    if not words:
        return False
    if words[-1] in _NEGATIONS or words[-1] == "or":
        return True
    return len(words) == 2 and words[0] in _NEGATIONS and words[-1] in _COPULAS


def _attached(text: str, line_start: int, start: int, end: int) -> bool:
    r"""Is the box text[start:end] an operand of notation right before or after it?
    (-\boxed{3}, \frac{1}{\boxed{3}}, x > \boxed{3}, "not \boxed{3}", \boxed{3}.5, \boxed{2}\pi,
    \boxed{3} thousand; a policy once padded 200 KB of spaces before a box to stall a
    backtracking pattern: everything here looks at a bounded neighbourhood.)"""
    from verifier.math.normalize import changes_value

    if _negated_before(text, start):
        return True
    i = _trim_back(text, line_start, start)
    wrapper = _STYLE_WRAPPER_RE.search(text, max(line_start, i - _NEAR), i)
    if wrapper:  # \mathbf{\boxed{5}}, \color{red}\boxed{5}: a style around the box, not an operand
        i = _trim_back(text, line_start, wrapper.start())
    near = text[max(line_start, i - _NEAR):i]
    if re.fullmatch(r"\s*(?:\$|\\[(\[])?\s*-", near) and i - _NEAR <= line_start:
        if not re.search(r"\s", text[i:start]):
            return True  # -\boxed{3}, $-\boxed{3}$, -**\boxed{3}** (a bullet "- \boxed{3}" is fine)
    elif near:
        if _OPERAND_BEFORE_RE.search(near):
            return True
        if i == start and re.search(r"(?<![A-Za-z\\])[A-Za-z]$|[\dA-Za-z)]\($", near):
            return True  # x\boxed{3} is 3x, 2(\boxed{3}) is 6
        if near.endswith("}") and not _TEXT_GROUP_END_RE.search(near):
            return True  # \frac{1}{2}\boxed{3}, x^{2}\boxed{3}: a factor
        words = _last_words(near, 2)
        if words and (words[-1] in _WORD_BEFORE or tuple(words) in _TWO_WORDS_BEFORE):
            return True  # "minus \boxed{3}", "twice \boxed{3}", "up to \boxed{3}"
    j = _INVISIBLE_RUN_RE.match(text, end).end()
    rest = text[j:j + _NEAR]
    if _OPERAND_AFTER_RE.match(rest):
        return True
    if not rest[:1] or re.search(r"\n[^\S\n]*\n", text[end:j]):
        return False  # a paragraph break: "\boxed{7}\n\nI hope it is correct." ("I" is no unit)
    wrapped = re.match(r"\\(?:text|mathrm|mbox|textrm)\s*+\{\s*+([A-Za-z]+)", rest)
    if wrapped and changes_value(wrapped.group(1)):
        return True  # \boxed{3} \text{ thousand}
    if rest[0].isalpha() or rest[0] in "([{":
        if j == end or _MATH_SPACING_RE.search(text, end, j):
            return True  # \boxed{3}x, \boxed{3}\, x, \boxed{3}(x+1): glued to what follows
        word = re.match(r"[A-Za-z]+", rest)
        if word and word.group(0).lower() not in _SENTENCE_GOES_ON and changes_value(word.group(0)):
            return True  # \boxed{3} thousand, \boxed{3} squared, \boxed{0.3} repeating
    return False


def _glued(between: str) -> bool:
    if _BOX_GLUE_RE.fullmatch(between):
        return True
    if len(between) > 40:
        return False
    gap = _GAP_TEXT_RE.sub(lambda m: " " + m.group(1) + " ", between)
    gap = re.sub(r"\\(?:lor|vee|veebar|oplus)(?![A-Za-z])", " or ", gap)
    gap = re.sub(r"\\(?:textbf|textit|emph)(?![A-Za-z])|[{}]", " ", gap)
    gap = re.sub(r"\\\\\s*(?:\[[^\]]*\])?|\\(?:quad|qquad|[,;:! ])|[~&/|$.]", " ", gap)
    # spacing and layout commands typeset nothing between two answers (a seventh review)
    gap = re.sub(r"\\(?:enspace|enskip|thinspace|negthinspace|hfill|hfil|vfill|newline|linebreak|par|"
                 r"medskip|smallskip|bigskip|relax|strut|mathstrut|cr|hline|break|allowbreak|noindent|null|"
                 r"nobreak|displaystyle|textstyle|notag|nonumber|space|pagebreak|newpage|clearpage|"
                 r"(?:kern|hskip|mkern|mskip|hspace\*?|vspace\*?)\s*[-+]?\s*[\d.]*\s*(?:em|ex|pt|mu|cm|mm|in)?)"
                 r"(?![A-Za-z])", " ", gap)
    # letters, with the combining vowel signs of Indic and Thai scripts kept in their word ("या")
    words = re.findall(r"[^\W\d_](?:[^\W\d_]|[\u0300-\u036f\u0900-\u0dff\u0e00-\u0e7f])*", gap)
    return all(w.lower() in _gap_words() for w in words) and not re.search(r"[=<>\\]", gap)


@functools.cache
def _gap_words() -> frozenset:
    """_GAP_WORDS as they look after ``plain_letters`` (Cyrillic "либо" is "либo" there)."""
    return frozenset(_GAP_WORDS | {plain_letters(w) for w in _GAP_WORDS})


def _final_box_group(text: str) -> list[str] | None:
    boxes = all_boxed(text)
    if not boxes:
        return None
    group = [boxes[-1]]
    for b in reversed(boxes[:-1]):
        if not _glued(text[b[1] : group[0][0]]):
            break
        group.insert(0, b)
    line_start = text.rfind("\n", 0, group[0][0]) + 1
    if _attached(text, line_start, group[0][0], group[-1][1]):
        return []  # the box is an operand, not the answer
    from verifier.math.box_context import box_disowned

    values = len({b[2].strip() for b in boxes})
    if box_disowned(text, group[0][0], group[-1][1], _join([b[2] for b in group]), values):
        return []  # its words say it is not the answer
    if _BOUND_AFTER_RE.match(text, group[-1][1]) or _FOREIGN_BOUND_AFTER_RE.match(text, group[-1][1]) or \
            _BOUND_BEFORE_RE.search(text, max(0, group[0][0] - 64),
                                                                             group[0][0]):
        return []  # "\\boxed{7}+", "\\boxed{7} at least", "\\boxed{7} is an upper bound": a bound
    if answer_gap_unexplained(text, group[0][0]):
        return []  # "the answer is likely \\boxed{7}", "the answer is ≳ \\boxed{7}": not the plain answer
    answers = [b[2] for b in group]
    if len(answers) == 1 and (_APPROX_BEFORE_RE.search(text, max(0, group[0][0] - 48), group[0][0])
                              or _APPROX_AFTER_RE.match(text, group[-1][1])):
        answers[0] = "\\approx " + answers[0]  # "roughly \boxed{100}": judged as \approx 100
    return answers


# -- between an answer phrase and its box ---------------------------------------------------
# "The answer is <gap> \boxed{7}": a hedge, a bound or a relation anywhere in <gap> (not only
# right before the box, where _attached and the bound patterns look) makes the box no answer:
# "the answer is likely the value \boxed{7}", "the answer is at least, i.e., \boxed{7}", "the
# answer is $x \ge 4 = \boxed{7}$". Only evidence refuses: a word the judge does not know
# ("consequently", "the fraction", "going to be") is no reason to refuse a correct answer (a
# closed list of neutral words was tried and refused 11 % of an out-of-sample corpus of
# correct, natural final lines).
_ANSWER_LEAD_RE = re.compile(r"\banswers?\s*+(?:is|was|are|would\s+be|will\s+be|should\s+be|must\s+be|"
                             r"equals|reads|:|=)", re.IGNORECASE)
_GAP_EVIDENCE_RE = re.compile(
    r"\b(?:at\s+(?:the\s+)?(?:least|most)|no\s+(?:more|less|fewer|greater)\s+than|not\s+(?:more|less)\s+than|"
    r"(?:more|less|fewer|greater|bigger|smaller|larger|higher|lower)\s+than|up\s+to|exceed\w*|"
    r"from\s+\S{1,20}\s+to|between|bound\w*|minimaal|maximaal|"
    r"of\s+order|on\s+the\s+order\s+of|order\s+of\s+magnitude|something\s+like|like|e\.\s*g\.|"
    r"for\s+(?:example|instance)|such\s+as|unknown|unclear|uncertain|undetermined|doubt\w*|"
    r"conjectur\w*|hypothes\w*|speculat\w*|suspect\w*|tentative\w*|provisional\w*|draft|unverified|"
    r"untrue|congruent)\b"
    r"|(?<![A-Za-z])e\.\s*g\.", re.IGNORECASE)
# "the answer would be" / "should be" states it (an out-of-sample probe: GPT- and Llama-style
# endings were refused); any other hedge word is evidence ("I would guess" still hedges).
# Also box_context's, for the sentence before a box.
STATING_MODAL_RE = re.compile(r"\b(?:would|should)\s+(?:therefore\s+|then\s+|thus\s+|also\s+|still\s+)?be\b",
                              re.IGNORECASE)
# relations that make the box a bound or something other than the value; approximations
# (\approx, \sim, ...) are not here: "\approx \boxed{2.24}" is judged as an approximation
_GAP_RELATION_CMDS = frozenset(
    "gtrsim lesssim gtrapprox lessapprox ge geq geqq geqslant le leq leqq leqslant gt lt gg ll ggg lll "
    "gggtr llless ne neq not nless ngtr nleq ngeq lneq gneq lneqq gneqq lnsim gnsim lnapprox gnapprox "
    "prec succ preceq succeq precsim succsim subset supset subseteq supseteq subsetneq supsetneq in "
    "notin ni owns sqsubset sqsupset sqsubseteq sqsupseteq mid nmid propto eqslantgtr eqslantless "
    "gtreqless lesseqgtr gtreqqless lesseqqgtr lessgtr gtrless lessdot gtrdot vdash dashv models perp "
    "parallel nparallel unlhd unrhd lhd rhd vartriangleleft vartriangleright trianglelefteq "
    "trianglerighteq pitchfork bowtie between neg lnot equiv nequiv".split())
# a step of a derivation: what a relation before it said is left behind ("2x = 10 \implies x = \boxed{5}")
_GAP_STEP_CMDS = frozenset("leftarrow rightarrow Rightarrow Leftarrow Leftrightarrow leftrightarrow longrightarrow "
                           "Longrightarrow longleftarrow Longleftarrow Longleftrightarrow to gets mapsto implies "
                           "impliedby iff therefore".split())
_GAP_STEP_CHARS = frozenset("⟹⇒→⟶⇔⟺∴")
_GAP_TOKEN_RE = re.compile(r"\\([A-Za-z]+)|\\.|=/=|/=|!=|=<|=>|<>|[(\[{]|[)\]}]|\S")
_GAP_OPERATORS = frozenset("=+-−×÷·*/^|±∓√∑∏∫′'")
_GAP_APPROX = frozenset("≈∼≃≅≒≓≐~")
_GAP_APPROX_WORDS = frozenset("roughly approximately approx about around nearly almost circa estimate estimated".split())


def answer_gap_unexplained(text: str, start: int) -> bool:
    """Does the gap between the last answer phrase before the box at ``start`` (on its line,
    or on the line before when the box opens its own line) and the box hedge, bound or relate
    it? (See above.)"""
    line_start = text.rfind("\n", 0, start) + 1
    if not text[line_start:start].strip(" \t$*#>-_`[(\\"):  # the box opens its line ("...is\n\\boxed{5}")
        window = max(0, line_start - 240)  # (bounded: a policy may pad with blank lines)
        prev_end = window + len(text[window:line_start].rstrip())
        line_start = text.rfind("\n", window, prev_end) + 1 or window
    lo = max(line_start, start - 240)
    lead = None
    for lead in _ANSWER_LEAD_RE.finditer(text, lo, start):
        pass
    if lead is None:
        return False
    gap = text[lead.end():start]
    if re.search(r"[.!?](?:\s|$)", re.sub(r"(?<![A-Za-z])(?:e\.\s*g|i\.\s*e)\.", " ", gap, flags=re.I)):
        return False  # another sentence: the answer phrase is not this box's
    if _GAP_EVIDENCE_RE.search(gap):
        return True
    # (approximation words are not refused: next to the box they make it an approximation)
    hedge = [m for m in _HEDGE_RE.finditer(gap) if m.group(0).lower() not in _GAP_APPROX_WORDS]
    if hedge and not all(STATING_MODAL_RE.match(gap, m.start()) for m in hedge):
        return True  # "likely", "I believe", "probably", "perhaps" anywhere in the gap
    depth, in_math, related = 0, False, False
    for m in _GAP_TOKEN_RE.finditer(gap):
        tok, cmd = m.group(0), m.group(1)
        if tok == "$":
            in_math = not in_math
        elif tok in ("\\(", "\\["):
            in_math = True
        elif tok in ("\\)", "\\]"):
            in_math = False
        elif tok in "([{":
            depth += 1
        elif tok in ")]}":
            depth = max(0, depth - 1)
        elif depth:
            continue  # inside brackets: P(X \le 3), \lim_{x \to 0}
        elif cmd in _GAP_STEP_CMDS or tok in _GAP_STEP_CHARS:
            related = False  # a new step of the derivation starts
        elif cmd is not None:
            related = related or cmd in _GAP_RELATION_CMDS
        elif tok in ("=/=", "/=", "!=", "=<", "=>", "<>"):
            related = True
        elif tok == "~":
            glued = m.start() == 0 or not gap[m.start() - 1].isspace()
            if not glued and not in_math:
                return True  # "is ~ \\boxed{7}": an estimate ("is~\\boxed{7}" is TeX's tie)
        elif len(tok) == 1 and unicodedata.category(tok) == "Sm" and tok not in _GAP_OPERATORS \
                and tok not in _GAP_APPROX:
            related = True  # <, >, ≥, ≳, ⪖, ≨, ⊂, ∈, ...
    return related  # the last step relates the box by something other than "="


# an approximation word right before the final box (not "~": LaTeX's tie, "is~\boxed{5}")
_APPROX_BEFORE_RE = re.compile(r"(?:\b(?:roughly|approximately|approx\.?|about|around|nearly|almost(?:\s+exactly)?|circa|"
                               r"estimated?|ballpark|rounded|rounding|nearest\s+\w+)"
                               # "Estimated answer:", "About twelve, i.e."
                               r"(?:\s+(?:answer|value|result|total|count|figure)|\s+[\w.]+,?\s+(?:i\.?e\.?|that\s+is|namely))?"
                               r"|(?<!\w)(?:environ|aproximadamente|ungef[äa]hr|etwa|approssimativamente|cerca\s+de|"
                               r"примерно|около|пpимеpнo|oкoлo)(?!\w)|大约|大約|约|約|およそ"
                               r"|[≈≃≅]|\\(?:approx|simeq|doteq|thickapprox|backsim|eqsim|cong|sim)(?![a-z]))"
                               r"(?:\s|\$|\\[(\[,; ]|\*\*|~|:|,)*+$", re.IGNORECASE)
# ... or right after it: "\\boxed{12}-ish", "to the nearest integer", "(rough)", "(est.)", "± 1"
_APPROX_AFTER_RE = re.compile(r"(?:\$|\\[)\]])*+\s*+(?:-ish\b|to\s+the\s+nearest\b|\(\s*(?:rough\w*|approx\w*|ballpark\w*|"
                              r"numerically|truncated|est(?:imated?)?\.?|nearest\s+\w+|to\s+\d+\s*(?:s\.?f\.?|"
                              r"significant|decimal|d\.?p\.?)[^)]*|rounded[^)]*)\s*\)|±|\\pm\b|\+/-|rounded\b)",
                              re.IGNORECASE)


# right after the box: it is a bound, not the value (a sixth review)
_BOUND_AFTER_RE = re.compile(r"(?:\$|\\[)\]])*+\s*+(?:\+(?![\d(\\{])|(?:and|or)\s+(?:up|above|more|higher|greater|over|"
                             r"fewer|less|lower|below|under)\b|at\s+(?:the\s+)?(?:very\s+)?(?:least|most|minimum|maximum)\b|"
                             r"\(\s*at\s+(?:the\s+)?(?:minimum|maximum|least|most)\b|oder\s+(?:mehr|weniger)|o\s+(?:más|menos|più|meno)|"
                             r"ou\s+(?:plus|moins|mais)|или\s+(?:больше|меньше|более|менее)|以上|以下|或更多|或更少|이상|이하|"
                             r"(?:is\s+)?an?\s+(?:upper|lower)\s+bound\b|\(\s*(?:or\s+more|"
                             r"or\s+less|upper\s+bound|lower\s+bound|min|max)\b)", re.IGNORECASE)


def _strip_dollars(s: str) -> str:
    """Drop math-mode ``$`` at both ends, but not an escaped ``\\$`` (a currency sign)."""
    s = s.strip().lstrip("$")
    while s.endswith("$") and not s.endswith("\\$"):
        s = s[:-1]
    return s.strip()


def _join(answers: list[str]) -> str:
    """Several boxed answers as one list; the same box written twice is one answer."""
    unique = list(dict.fromkeys(a for a in answers))
    return unique[0] if len(unique) == 1 else ", ".join(unique)


_TITLE_RE = re.compile(r"(?<![A-Za-z])(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Mt|Prof|Gen|Capt|Lt|Col|Sgt|Rev)$", re.I)


_TITLE_DOT_RE = re.compile(r"(?<![A-Za-z])(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Mt|Prof|Gen|Capt|Lt|Col|Sgt|Rev)\.", re.I)


# a note after the answer in its own sentence: "3 (the smallest such n)", "$10\pi$, since
# ...", "19.5 as the final answer" (a review: 180 right answers refused as prose)
# Each starts only where a whitespace run starts ((?<!\s)): tried from every space of a long
# run, the leading \s*+ made a search quadratic ("The answer is =" + 150,000 spaces + "4":
# 110 s in out-of-sample check 8, and other requests waited behind it).
_NOTE_PAREN_RE = re.compile(r"(?<!\s)\s*+(?<!\\)\(([^()$\\]*+)\)\s*+[.,;]?\s*+$")  # not \(...\): math
_NOTE_CLAUSE_RE = re.compile(r"(?:,\s*+|(?<!\s)\s++)(?:since|because|as\s+(?:the|our|my)\s+(?:final\s+)?answer"
                             r"|which|given\s+that|so\s+that"
                             r"|where|as\s+(?:required|expected|computed|shown|claimed))\b", re.IGNORECASE)


def _drop_note(line: str) -> str:
    """The answer without a note that only comments on it. A note that hedges or names a
    value ("(or possibly 4)", "(not 4)") stays, so the answer stays unreadable or revised."""
    base = re.fullmatch(r"(\$?)([0-9A-Za-z]+)(_\{?\d+\}?)?(\$?)\s*\(\s*in\s+base\s+(\d+)\s*\)\s*[.,;]?\s*", line)
    if base:  # "30 (in base 8)" is 30_8 ("30" alone was paid for a decimal 30: a fourth review)
        digits, sub, n = base.group(2), base.group(3), base.group(5)
        return f"{digits}{sub}" if sub else f"{digits}_{{{n}}}"
    m = _NOTE_PAREN_RE.search(line)
    if m and m.start() > 0 and _PROSE_RE.search(m.group(1)) and not _note_hedges(m.group(1)):
        return line[:m.start()].rstrip()
    m = _NOTE_CLAUSE_RE.search(line)  # its first clause word only: linear in the line
    if m and m.start() > 0 and "$" not in line[m.start():] and not _note_hedges(line[m.start():]):
        return line[:m.start()].rstrip()
    return line


def _note_hedges(note: str) -> bool:
    """Does the note hedge the answer or change its value ("(in thousands)", "(squared)",
    ", since we still have to double it": a fourth review)? Then it is no mere comment."""
    return bool(re.search(r"\d|\bbase\b", note) or _REVISION_RE.search(note) or _NEGATED_NOTE_RE.search(note))


_NEGATED_NOTE_RE = re.compile(
    r"\b(?:not|never|no|approximately|about|roughly|wrong|incorrect|if|where|twice|half|doubl\w*|tripl\w*|quadrupl\w*|squar\w*|cub\w*|negat\w*|"
    r"opposite|reciprocal|inverse|invert\w*|round\w*|multipl\w*|divid\w*|subtract\w*|add\w*|"
    r"plus|minus|times|scale\w*|units?\s+of|dozens?|hundreds?|thousands?|millions?|billions?|"
    r"percent\w*|\w*illions?|\w+fold|halves|thirds|quarters|fourths|fifths|tenths|"
    r"hundredths|thousandths|powers?|exponent|logs?|logarithm|mod|modulo|residue|remainder|"
    r"estimate\w*|approx\w*|false|reject\w*|invalid|guess\w*|tentative\w*|unverified|doubt\w*|"
    r"underestimat\w*|overestimat\w*|equivalently|"
    r"placeholder|gave\s+up|unlikely|bounds?|binary|hex\w*|octal|" + "|".join(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
        "eighty ninety".split()) + r")\b", re.IGNORECASE)


def _clean_phrase_answer(raw: str) -> str:
    """Cut a phrase answer at the end of its line/sentence and drop wrapping $ and '.'."""
    line = raw.split("\n", 1)[0].split("。", 1)[0]  # "答案是 -46。": a full stop ends it
    # a sentence ends at ". " (not a decimal point like 3.5, not inside $...$)
    dollars, counted = 0, 0
    for m in re.finditer(r"\.(?:\s|$)(?!\d)", line):
        if _TITLE_RE.search(line, max(0, m.start() - 5), m.start()):
            continue  # "Mr. Smith": an abbreviation's full stop ends no sentence
        # counted incrementally: a line of ". " after one "$" was quadratic
        dollars += len(_DOLLAR_RE.findall(line, counted, m.start()))
        counted = m.start()
        if dollars % 2 == 0:  # a \$ is a currency sign
            line = line[: m.start()]
            break
    line = line.strip().strip("*").strip()
    line = re.sub(r"^\\\((.*?)\\\)", r"$\1$", line)  # "\(35\), which ...": as "$35$, which ..."
    line = _drop_note(line).strip().strip("*").strip()  # "*Alice*, since ...": markdown italics
    span = re.fullmatch(r"\$+([^$]+)\$+(?:\s*[.,;!]?)?", line)
    if span:
        line = span.group(1)
    else:
        unit = re.fullmatch(r"\$([^$]+)\$\s++([A-Za-z]++(?:\s++[A-Za-z]++){0,2})\s*[.,;!]?", line)
        if unit:  # "$x = -5$ units": the words after the math are a unit (or prose to judge)
            line = f"{unit.group(1)} {unit.group(2)}"
    line = _strip_dollars(line)
    for wrap in (("\\(", "\\)"), ("\\[", "\\]")):
        if line.startswith(wrap[0]) and line.endswith(wrap[1]):
            line = line[2:-2].strip()
    return line.rstrip(".").strip()


_NUMBER_WORD = (r"\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
                r"fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|"
                r"sixty|seventy|eighty|ninety|hundred|thousand|million|billion|dozen)\b")
_NUMBER_WORD_RE = re.compile(_NUMBER_WORD, re.IGNORECASE)
_REVISION_RE = re.compile(
    r"\b(?:actually|wait|hmm+|oops|correction|mistake|wrong|instead|rather|scratch|"
    r"reconsider|re-?check|second thought|I mean|no,|or|maybe|perhaps|possibly|probably|"
    r"alternatively|unless|otherwise|either|could|might|sorry|never\s*mind|my bad|I meant|make that|"
    r"recheck(?:ing)?|redo(?:ing)?|recount(?:ing)?|correct(?:ing|ed)|also|too|as\s+well|nah|nope|"
    r"whoops|ugh|doh|err|eh|lol|j/?k|kidding|retract\w*|oh\s+no|edit|p\.?\s?s|update)\b"
    r"|→|⇒|=>|->|\\to\b|\\(?:Right|right|long)arrow",
    re.IGNORECASE)
# after a revision word, "it is X" / "the answer is X" in words: another answer (hostile
# review: "The answer is 3. Actually, it is four." and "red. Wait, it is blue." were paid)
_WORD_CLAIM_RE = re.compile(r"\b(?:it|that|the\s+(?:final\s+)?answer|this)\s*+(?:is|'s|should\s+be|must\s+be|was"
                            r"|might\s+be|could\s+be|may\s+be|would\s+be)"
                            r"\s++(?!not\b|also\b|too\b|as\b)(\(?[A-Za-z][A-Za-z.'-]*+\)?(?:\s++[A-Z][A-Za-z.'-]*+)?+)", re.IGNORECASE)
_UNWRAP_TEXT_RE = re.compile(_TEXT_CMD + r"\s*+\{([^{}]*+)\}")
# a phrase answer that is negated or conditional is no answer: "is not likely to be 3"
_NEGATED_RE = re.compile(r"^(?:not|never|no\s+longer|unlikely|possibly|probably|perhaps|maybe)\b"
                         r"|\b(?:wrong|incorrect)\b", re.IGNORECASE)
# a number stated as a value; one that starts an expression ("Check: $71 - 142 = -71$") is not
_CLAIM_RE = re.compile(r"(?:\b(?:is|are|was|were|be|becomes?|makes?|totals?|equals?|gives?|get|gets|got"
                       r"|obtain(?:s|ed)?|yields?)\b|=|:)\s*+\$?+\s*+(-?\d[\d.,/]*\d|-?\d|"
                       + _NUMBER_WORD + r")"
                       r"(?![\d.,/]*+\s*+(?:[-+*/^×·÷=<>(]|\\(?:times|cdot|div)\b))", re.IGNORECASE)


_CHECK_LINE_RE = re.compile(r"(?:^|(?<=[.!?\n]))[ \t]*+(?:to\s+be\s+safe,?\s*+)?(?:let\s+me\s+|let's\s+|let\s+us\s+)?"
                            r"(?:(?:sanity\s+|double[-\s]?|re-?)?check(?:ing|ed)?|verif(?:y|ication|ying))\b"
                            r"[^\n]*+", re.IGNORECASE)


# words that make a statement conditional, tentative or a rejected alternative
_HEDGE_RE = re.compile(
    r"\b(?:would|might|could|maybe|perhaps|possibly|probably|alternatively|plausible|mistakes?|"
    r"mistaken|naive(?:ly)?|wrong|incorrect|suppose|supposing|assume|assuming|unless|if|either|"
    r"guess|unsure|not\s+sure|candidates?|possible\s+(?:answers?|values?)|options?\s+are|"
    r"first\s+attempt|one\s+might|too\s+(?:large|small|big)|may|seems?|appears?|(?<!equally\s)likely|think|"
    r"believe|earlier|tried|discard\w*|reject\w*|fails?|otherwise|vs|versus|instead|not|never|"
    r"\w+n't|false|refut\w*|retract\w*|disregard|ignore|tentative\w*|should|say|claim|unclear|"
    r"doubtful|uncertain|guess\w*|estimat\w*|suspect|reckon|hunch|presumably|apparently|roughly|"
    r"hopefully|certainty|supposedly|allegedly|bogus|arguably|seemingly|erroneously|mistakenly|"
    r"wrongly|incorrectly|falsely)\b|n't\b",
    re.IGNORECASE)
_CHECK_WORDS = {"check", "checking", "checked", "verify", "verification", "verified", "verifying",
                "sanity", "ok", "okay", "yes", "true", "holds", "indeed", "and", "so", "correct",
                # what a check says of itself ("Check: the sum of the roots is $0$, matching
                # Vieta", "at $x = 1$ both forms give $-12$", "$x = -9$ satisfies the original
                # inequality": out-of-sample check 6); no word of an answer or a revision
                "the", "a", "an", "of", "is", "are", "at", "in", "into", "with", "for", "by", "as",
                "it", "this", "both", "each", "all", "sum", "product", "roots", "root", "forms",
                "form", "give", "gives", "gave", "matching", "matches", "match", "vieta", "satisfies",
                "satisfy", "original", "inequality", "equation", "equations", "works", "consistent",
                "plugging", "substituting", "back", "side", "sides", "equal",
                "equals", "agree", "agrees", "expected", "also", "confirms", "confirmed", "good",
                "identity", "expanding", "expansion", "same", "again",
                # "Let me double-check this.", "To be safe, let's re-check each step."
                "let", "me", "let's", "us", "double", "re", "recheck", "this", "to", "be", "safe",
                "each", "step", "steps", "once", "more", "computation", "work", "our", "s",
                "ing", "substitution", "plug", "plugged", "approximately", "equality", "holds"}


_INTERMEDIATE_RE = re.compile(r"\b(?:the\s+)?(?:key\s+)?intermediate\s+(?:quantity|quantities|value|values|result|"
                              r"results|step|steps|sum|product|answer)\b", re.IGNORECASE)


def _plain_check(m: re.Match) -> str:
    """A check line is dropped when it is only arithmetic and check words; one that says
    more ("Check: that fails, the count must be 5", "Checking again, I get 5": a fourth
    review) is read like any other text."""
    line = m.group(0)
    if re.search(r"[✗✘❌]|\b(?:fails?|failed|wrong|incorrect|not|n't|better|alternative|instead|rather)\b", line,
                 re.IGNORECASE):
        return line  # "Check: 5 ✗; 7 ✓", "Check: plugging in 5 fails.": it disowns the answer
    outside = re.sub(r"\$[^$]*\$|\\\(.*?\\\)", " ", line)
    # "Check: the intermediate quantity $8$ matches. ✓": a value on the way, not an answer
    outside = _INTERMEDIATE_RE.sub(" ", outside)
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", outside)}
    return " " if words <= _CHECK_WORDS else line


def _revised(ans: str, after_phrase: str) -> bool:
    """Does the text after the answer phrase take the answer back or state another one?

    A policy must not leave a phrase answer and then hedge with a second value after it
    ("The answer is 3. Hmm, actually I think it is 4."): the phrase's answer counts only
    when nothing after its sentence revises it (a revision word next to a number, or "is
    N" / "= N" with a different N). Boxes are unaffected (the last box group wins)."""
    head = _clean_phrase_answer(after_phrase)
    idx = after_phrase.find(head) + len(head) if head else 0
    rest = after_phrase[idx:]
    revision = _REVISION_RE.search(rest)
    if revision and not re.search(r"\d", ans):
        # a word answer, then a revision word and a few other words: "yes. Hmm, no.",
        # "Devon. Wait, Alice.", "south\nCorrection: north" (a claim "it is X" is read below)
        tail = re.split(r"[.!?\n]", rest[revision.end():].lstrip(" ,:;-—"), maxsplit=1)[0]
        words = re.findall(r"[A-Za-z]+", _UNWRAP_TEXT_RE.sub(r" \1 ", tail))
        if 0 < len(words) <= 3 and " ".join(words).lower() != ans.strip().strip(".()*").lower() \
                and not _WORD_CLAIM_RE.search(tail):
            return True
    if revision:
        # a word answer in math ("Wait, it is $\\text{blue}$") is a word answer too
        words = _UNWRAP_TEXT_RE.sub(r" \1 ", rest[revision.start():]).replace("$", " ")
        claim = _WORD_CLAIM_RE.search(words)
        if claim and claim.group(1).strip(".()").lower() != ans.strip().strip(".()").lower():
            return True
    from verifier.math.box_context import _restated, _same_value, stray_value

    if stray_value(ans, rest):
        return True  # "The answer is yes. No.", "The answer is 5.\n\n7 is the final answer."
    if re.search(r"(?m)^[ \t]*+\$?-?\d[\d.,/]*+\$?[ \t]*+$", rest) and not re.search(
            r"(?m)^[ \t]*+\$?" + re.escape(ans.strip().strip("$")) + r"\$?[ \t]*+$", rest):
        return True  # a bare number on a line of its own after the answer: another answer
    has_value = (re.search(r"\d", rest) or _NUMBER_WORD_RE.search(rest)
                 or (not rest.isascii() and any(unicodedata.numeric(c, None) is not None for c in rest)))
    if re.match(r"\(?[A-E]\)(?:\s|$)|[A-E]$", ans.strip()) and re.search(r"(?<![A-Za-z\\])\(?[A-E]\)?(?![A-Za-z])",
                                                              _CHECK_LINE_RE.sub(" ", rest)):
        return True  # "Answer: C. D also fits.": another option named after it
    if not has_value:
        return False
    if revision:
        return True
    # A check verifies the answer; its own values are no second answer ("The answer is (A) 6.
    # Check: $6 - 4 = 2$ ✓"). Only the phrase's answer is paid, so a policy gains nothing by
    # naming another value in one (with a revision word in it, it is a revision, above).
    rest = _CHECK_LINE_RE.sub(_plain_check, rest)
    # a sentence that writes the whole answer again ("In summary, the solutions are $-2, 1$.")
    rest = " ".join(s for s in re.split(r"(?<=[.!?])\s+|\n+", rest) if not _restated(ans, s))
    for content, _, _ in math_spans(rest.lstrip("$"), positions=True):  # "The answer is $3$.\n\n$4$"
        value = content.strip()
        # any math with a number in it, other than the answer written again ("So the total is
        # $\frac{8}{2}$."): a later value, and no way to tell it is the same one cheaply
        if re.search(r"\d", value) and _squeeze(value) != _squeeze(ans.strip().strip("$")) \
                and not _same_value(ans.strip().strip("$"), value):
            return True
    return any(m.group(1).rstrip(".,") != ans.strip() and not _same_value(ans, m.group(1).rstrip(".,"))
               for m in _CLAIM_RE.finditer(rest))


def _same_number(a: str, b: str) -> bool:
    """"249" restates "249.0", "0.55" restates "11/20"."""
    from fractions import Fraction

    vals = []
    for x in (a, b):
        x = x.strip().strip("$").rstrip(".,").replace(",", "").replace("\\$", "").replace("−", "-")
        m = re.fullmatch(r"(-?\d+(?:\.\d+)?)(?:/(\d+))?", x.strip())
        if not m or m.group(2) == "0":
            return False
        vals.append(Fraction(m.group(1)) / (int(m.group(2)) if m.group(2) else 1))
    return vals[0] == vals[1]


def _squeeze(s: str) -> str:
    return re.sub(r"[\s{}$]|\\[,;:! ]|\\left|\\right", "", s)


def looks_like_bare_answer(text: str) -> bool:
    """True when ``text`` is short and has no prose words (it is an answer already)."""
    t = text.strip()
    if not t or len(t) > 200 or "\n" in t:
        return False
    if date_answer(t) is not None:
        return True  # "June 26": a date is a number with a month's name
    if not re.search(r"\d", t) and len(t.split()) <= 3 and not re.search(r"[.!?]\s", _TITLE_DOT_RE.sub("T", t)):
        return True  # a word answer such as "Devon" or "yes"
    t = re.sub(r"(?<=[\d}\)\]%])(?:\s+[A-Za-z][A-Za-z\-']*){1,4}\.?$", "", t)  # "5 dollars"
    t = re.sub(r"\\(?:text|mbox|mathrm)\s*\{[^{}]*\}", " ", t)  # units and words in \text
    t = re.sub(r"\\[a-zA-Z]+", " ", t)  # LaTeX commands are not prose
    words = [w.lower() for w in _PROSE_RE.findall(t)]
    return all(w in _MATH_WORDS for w in words)


def _closers(text: str, closer: str, escapable: bool) -> list[int]:
    """Every index where ``closer`` starts (overlapping), skipping a ``\\$`` when ``escapable``."""
    out, i = [], text.find(closer)
    while i >= 0:
        if not (escapable and i > 0 and text[i - 1] == "\\"):
            out.append(i)
        i = text.find(closer, i + 1)
    return out


def math_spans(text: str, positions: bool = False) -> list:
    """The contents of the math spans ``$$...$$``, ``$...$``, ``\\(...\\)``, ``\\[...\\]``, left
    to right, each the shortest non-empty one from its opener (an unescaped ``$`` for ``$``).

    What a lazy alternation regex finds, in O(n log n): the regex scanned to the end of the
    text from every opener that has no closer (``\\(`` repeated 100,000 times: 90 s)."""
    kinds = (("$$", "$$", False), ("$", "$", True), ("\\(", "\\)", False), ("\\[", "\\]", False))
    closers = [_closers(text, close, esc) for _, close, esc in kinds]
    spans, i, n = [], 0, len(text)
    next_dollar = next_slash = -1  # the next "$" / "\\" at or after the last lookup (n: none)
    while i < n:
        if text[i] not in "$\\":
            # cached: a find that found nothing, or something still ahead, is not repeated
            if next_dollar < i:
                next_dollar = text.find("$", i)
                next_dollar = n if next_dollar < 0 else next_dollar
            if next_slash < i:
                next_slash = text.find("\\", i)
                next_slash = n if next_slash < 0 else next_slash
            i = min(next_dollar, next_slash)
            continue
        end = None
        for (opener, close, esc), at in zip(kinds, closers):
            if not text.startswith(opener, i) or (esc and i > 0 and text[i - 1] == "\\"):
                continue
            k = bisect.bisect_left(at, i + len(opener) + 1)  # the content is not empty
            if k < len(at):
                content = text[i + len(opener) : at[k]]
                end = at[k] + len(close)
                spans.append((content, i, end) if positions else content)
                break
        i = end if end is not None else i + 1
    return spans


_DISOWNED_AFTER_RE = re.compile(r"[\s.,;:]*+(?:is|was|would\s+be)\s++(?:not|incorrect|wrong|false|impossible)\b",
                                re.IGNORECASE)


def escape_currency(text: str) -> str:
    """``$`` signs that open no math span, escaped as currency: "The answer is $264. I hope
    it is correct." (a review: read as a span up to the next ``$``, or the sentence left
    uncut). A ``$`` followed by a digit opens a span only if the next ``$`` on its line
    can close one: right after a non-space (Pandoc's rule), not right before a digit."""
    if "$" not in text:
        return text
    out, i, n = [], 0, len(text)
    while (j := text.find("$", i)) >= 0:
        if (j > 0 and text[j - 1] == "\\") or text.startswith("$$", j):
            k = j + (2 if text.startswith("$$", j) else 1)
            out.append(text[i:k])
            i = k
            continue
        end = text.find("$", j + 1)
        line_end = text.find("\n", j + 1)
        closes = (end > j + 1 and (line_end < 0 or end < line_end) and not text[end - 1].isspace()
                  and not text[end + 1:end + 2].isdigit())
        if j + 1 < n and text[j + 1].isdigit() and not closes:
            out.append(text[i:j] + "\\$")  # currency
            i = j + 1
            continue
        k = (end + 1) if end > j else n
        out.append(text[i:k])
        i = k
    out.append(text[i:])
    return "".join(out)


_STRUCK_RE = re.compile(r"~~[^~\n]*+~~")
# what a reader never sees: HTML and LaTeX comments, \iffalse blocks, \phantom, white text
# (a review boxed 5 visibly and 3 in a comment: the comment's box was paid)
_HIDDEN_RE = re.compile(
    r"<!--.*?(?:-->|$)|\\iffalse\b.*?(?:\\fi\b|$)|\\begin\{comment\}.*?(?:\\end\{comment\}|$)"
    r"|(?m:^[ \t]*+%[^\n]*+)|\\(?:h|v)?phantom\s*+\{(?:[^{}]|\{[^{}]*+\})*+\}"
    r"|\\textcolor\s*+\{\s*+white\s*+\}\s*+\{(?:[^{}]|\{[^{}]*+\})*+\}"
    r"|\\color\s*+\{\s*+white\s*+\}[^$]*+"
    # an HTML element set not to show, with what it holds; then any tag's attributes, which are
    # not shown either: '<a title="$\\boxed{7}$"></a>' (a seventh review)
    r"|<([A-Za-z][\w:-]*+)\b[^<>]*?(?:display\s*+:\s*+none|visibility\s*+:\s*+hidden|opacity\s*+:\s*+0(?![.\d]*[1-9])"
    r"|\shidden\b|font-size\s*+:\s*+0(?![.\d]*[1-9]))[^<>]*+>.*?(?:</\1\s*+>|$)"
    r"""|<[A-Za-z][\w:-]*+(?:\s++[\w:-]++\s*+=\s*+(?:"[^"<>]*+"|'[^'<>]*+'|[^\s"'<>=]++))++\s*+/?>""", re.S | re.I)
# typesetting that makes what follows vanish: size 0, a scale of 0, a large negative kern or
# space (a sixth review hid a second box that way; no answer of a real response needs them)
_VANISHING_RE = re.compile(
    # size 0 (or in sp, 1/65536 pt) and a scale of 0
    r"\\fontsize\s*+\{\s*+(?:0*+(?:\.\d*+)?+\s*+(?:pt|em|ex|px)?+|[\d.]*+\s*+sp)\s*+\}"
    r"|\\(?:scalebox|resizebox)\s*+\{\s*+0*+(?:\.\d*+)?+\s*+(?:pt|em|ex)?+\s*+\}"
    # a large negative kern or space: 10 units or more, 1 em/in/cm or more, any in/cm, a line width
    r"|\\(?:kern|hspace\*?+\s*+\{|hskip|mkern|mskip)\s*+-\s*+(?:\d{2,}|[1-9](?:\.\d*+)?+\s*+(?:em|in|cm)|"
    r"\d*+\.?\d++\s*+(?:in|cm)\b|[\d.]*+\s*+\\(?:textwidth|linewidth|hsize|columnwidth|paperwidth|textheight))"
    # a TeX conditional (\ifx a b ... \fi, \newif; not \iff) and markdown/XML comment forms
    r"|\\newif|\\if(?!f(?![a-zA-Z]))[a-zA-Z]*+(?![a-zA-Z])"
    r"|(?m:^\s*+\[[^\]\n]*+\]:\s*+(?:<>|#)\s*+\()|<!\[CDATA\[")
# Letters that look Latin but are not (Cyrillic, Greek), and invisible characters: "Аctually",
# "rеjected", "th\u200bousands" slipped past every word rule (a fourth review). Digits and
# math symbols are left alone (NFKC would turn x² into x2).
_CONFUSABLES = str.maketrans({
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "ѕ": "s", "і": "i",
    "ј": "j", "ԁ": "d", "һ": "h", "ӏ": "l", "ԛ": "q", "ԝ": "w", "ɡ": "g", "А": "A", "В": "B",
    "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T", "Х": "X",
    "У": "Y", "Ѕ": "S", "І": "I", "Ј": "J", "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H",
    "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
    "ο": "o", "ν": "v", "\u200b": "", "\u200c": "", "\u200d": "", "\u2060": "", "\ufeff": "",
    "\u00ad": ""})


def plain_letters(text: str) -> str:
    """``text`` with look-alike letters read as the Latin ones and invisible characters gone."""
    return text.translate(_CONFUSABLES) if not text.isascii() else text


# -- the same words in other languages (hostile math review 5: 113 of 177 paid attacks were
# hedges, negations, conditions or revisions written in French, Spanish, Portuguese, Italian,
# German, Russian, Chinese or Japanese around a box or after an answer phrase). Matched after
# ``plain_letters``, so the Cyrillic words are written through it here. Chinese and Japanese
# have no word boundaries: those entries are whole phrases that do not occur inside common
# words ("约" only before a value, never in "约分"; "可能" only as "可能是").
def _both_cases(c: str) -> str:
    if not ("\u0400" <= c <= "\u04ff"):
        return c
    forms = {c.lower().translate(_CONFUSABLES), c.upper().translate(_CONFUSABLES)}
    return forms.pop() if len(forms) == 1 else "[" + "".join(sorted(forms)) + "]"


def _words(latin: str, cyrillic: str = "", cjk: str = "") -> str:
    parts = [r"(?<!\w)(?:" + latin + r")(?!\w)"]
    if cyrillic:  # each letter in both cases, as plain_letters leaves it ("Не" reads "He")
        parts.append(r"(?<!\w)(?:" + "".join(_both_cases(c) for c in cyrillic) + r")(?!\w)")
    if cjk:
        parts.append(cjk)
    return "|".join(parts)


FOREIGN_HEDGES = _words(
    r"peut[-\s]?[êe]tre|probablement|sans\s+doute|je\s+(?:pense|crois)|environ|n'est\s+pas|quiz[aá]s?|"
    r"tal\s+vez|probablemente|creo\s+que|aproximadamente|no\s+es|talvez|provavelmente|acho\s+que|"
    r"n[ãa]o\s+[ée]|forse|probabilmente|non\s+[èe]|vielleicht|wahrscheinlich|ungef[äa]hr|ich\s+glaube|"
    r"nicht|falsch|faux|fausse|incorrect[oae]s?|sbagliat[oa]|errad[oa]|err[oó]ne[oa]|suppos[oé]|vermutlich",
    # not "не" alone: after plain_letters "Не" is the Latin "He"
    r"возможно|наверное|вероятно|примерно|около|неверно|неправильно|может\s+быть",
    r"可能是|也许|或许|大概|大约|约(?=\s*\$?\s*(?:\\boxed|\d))|不是|たぶん|多分|おそらく|約(?=\s*\$?\s*(?:\\boxed|\d))|違う|吗|嗎")
FOREIGN_REVISIONS = _words(
    r"en\s+fait|attend(?:ez|s)?|en\s+realidad|de\s+hecho|espera|na\s+verdade|in\s+realt[àa]|aspetta|"
    r"eigentlich|tats[äa]chlich|warte|korrektur|correcci[oó]n|corre[cç][aã]o|non(?!-)|nein|nee|nope|"
    r"en\s+r[ée]alit[ée]|anzi|ou|oppure|oder|o\s+(?:tal\s+vez|bien|quiz[aá]s?)|ou\s+talvez|"
    # a seventh review's: Turkish, Polish, Swedish, Danish, Norwegian, Dutch, Finnish
    r"aslında|asl[ıi]nda|w[łl]a[śs]ciwie|w\s+zasadzie|faktiskt|egentligen|faktisk|egentlig|eigenlijk|"
    r"in\s+feite|itse\s+asiassa|oikeastaan|faktycznie|todellisuudessa|pravda\s+je|sebenarnya|"
    r"b[łl][ąa]d|virhe|hata|fejl|feil|fel|chyba|ve\s+skute[čc]nosti|ustvari|zapravo|de\s+fapt|"
    r"valójában|tegelikult|faktiski|iš\s+tikrųjų|sebetulnya|thực\s+ra",
    r"на\s+самом\s+деле|подожди|стоп|нет|исправление|или",
    r"等等|等一下|应为|應為|错了|錯了|其实|其實|实际上|實際上|不对|不對|更正|実は|待って|いや|或者|或是")
# numbers written other ways than ASCII digits, for "a revision word, then a value": circled
# and superscript digits, CJK and Roman numerals, number words in the languages above
FOREIGN_NUMBER_RE = re.compile(
    r"[\u00b2\u00b3\u00b9\u2070-\u2079\u2080-\u2089\u2150-\u218b\u2460-\u24ff\u2776-\u2793\uff10-\uff19"
    r"一二三四五六七八九十百千两兩〇零]|(?<![A-Za-z])[IVXLC]{2,}(?![A-Za-z])|" + _words(
        r"deux|trois|quatre|cinq|six|sept|huit|neuf|dix|uno|dos|tres|cuatro|cinco|seis|siete|ocho|"
        r"nueve|diez|eins|zwei|drei|vier|f[üu]nf|sechs|sieben|acht|neun|zehn|tre|quattro|sei|sette|otto|"
        r"nove|dieci|sete|oito",
        r"один|одна|два|две|три|четыре|пять|шесть|семь|восемь|девять|десять"), re.IGNORECASE)
FOREIGN_CONDITIONS = _words(
    r"si|sauf\s+si|a\s+menos\s+que|wenn|falls|sofern|se|caso",
    r"если|когда",
    r"如果|假如|若|当|もし|場合")
_HEDGE_RE = re.compile(_HEDGE_RE.pattern + "|" + FOREIGN_HEDGES, re.IGNORECASE)
_REVISION_RE = re.compile(_REVISION_RE.pattern + "|" + FOREIGN_REVISIONS, re.IGNORECASE)
# a bound right before the box, in words ("mindestens \\boxed{5}", "至少\\boxed{5}", "between 4 and
# \\boxed{5}", "lower bound: \\boxed{5}": a seventh review; the one-word English ones are
# _WORD_BEFORE's)
# "at least" / "at most" in other languages, before or after the box
_FOREIGN_BOUNDS = (
    r"mindestens|h[öo]chstens|au\s+moins|au\s+plus|al\s+menos|a\s+lo\s+sumo|almeno|al\s+massimo|"
    r"pelo\s+menos|no\s+m[áa]ximo|co\s+najmniej|co\s+najwy[żz]ej|minstens|hoogstens|en\s+az|en\s+fazla|"
    r"v[äa]hint[äa][äa]n|enint[äa][äa]n|minst|h[öo]gst",
    r"не\s+менее|не\s+более|по\s+крайней\s+мере|как\s+минимум|как\s+максимум|минимум|максимум",
    r"至少|最多|最低|最高|不少于|不超过|少なくとも|多くとも|최소|최대")
_BOUND_BEFORE_RE = re.compile("(?:" + _words(
    _FOREIGN_BOUNDS[0] + r"|greater\s+than\s+or\s+equal\s+to|"
    r"less\s+than\s+or\s+equal\s+to|(?:lower|upper)\s+bound(?:\s+is)?|between\s+\S{1,20}\s+and|ca\.?",
    *_FOREIGN_BOUNDS[1:]) + r")[\s:$*~(\[\\]*+$", re.IGNORECASE)
# ... right after the box ("\\boxed{5} al menos", "\\boxed{5} не менее"; _BOUND_AFTER_RE has English)
_FOREIGN_BOUND_AFTER_RE = re.compile(r"(?:\$|\\[)\]]|\*\*)*+\s*+(?:" + _words(
    _FOREIGN_BOUNDS[0], _FOREIGN_BOUNDS[1] + r"|или\s+(?:больше|меньше|более|менее)", _FOREIGN_BOUNDS[2]) + ")",
    re.IGNORECASE)


def extract_answer(text: str, require_box: bool = False) -> str | None:
    """The final answer written in a response, or None when it holds none."""
    if not text or not text.strip():
        return None
    text = _HIDDEN_RE.sub(" ", plain_letters(text))  # comments and invisible text are not written
    if _VANISHING_RE.search(text):
        return None  # text set at size 0 or moved off the page: what shows is not what is read
    if "~~" in text:  # markdown strike-through: what it crosses out is not written (a review)
        text = _STRUCK_RE.sub(" ", text)
    group = _final_box_group(text)
    if group is not None:
        if group or require_box:
            return _join(group) if group else None
        return _corrected(text)
    if require_box:
        return None
    text = escape_currency(_BOLD_RE.sub("", text))
    gsm = list(_GSM_RE.finditer(text))
    if gsm:
        ans = _clean_phrase_answer(gsm[-1].group(1))
        if ans and _revised(ans, text[gsm[-1].start(1):]):
            return None  # "#### 3\nWait, actually it is 4.": the revision rule of phrases
        return ans
    phrases = list(_PHRASE_RE.finditer(text))
    if phrases:
        rest = text[phrases[-1].end() :]
        if rest.startswith("}") and _TEXT_OPEN_RE.search(text, max(0, phrases[-1].start() - 40),
                                                         phrases[-1].start()):
            rest = rest[1:]  # "\text{Answer: } 5": the phrase closes its text group
        ans = _clean_phrase_answer(rest)
        if ans and _NEGATED_RE.search(ans):
            return None  # "The answer is not likely to be 3.", "... is wrong if it is 3"
        if ans and not looks_like_bare_answer(ans):
            # "Final Answer: the largest value is 7." -> what follows the last "is"
            # ("### Answer\n\nThe area: 150" -> what follows a label's colon)
            m = re.search(r"(?:\b(?:is|are|equals|be)\s+(?!not\b)|^[A-Za-z][\w ]{0,40}:\s*)(\S.*)$", ans)
            if m and (_GAP_EVIDENCE_RE.search(ans, 0, m.start(1)) or _HEDGE_RE.search(ans, 0, m.start(1))):
                m = None  # "Answer: at least: 7", "Answer: probably: 7"
            if m and looks_like_bare_answer(m.group(1)):
                ans = _clean_phrase_answer(m.group(1))
        if ans and _revised(ans, text[phrases[-1].end() :]):
            return None  # "The answer is 3. Hmm, actually it is 4.": two answers, none final
        if ans:
            return ans
    if looks_like_bare_answer(text) and not _prose_around_math(text):
        return _strip_dollars(text)
    from verifier.math.conclusion import conclusion

    return conclusion(text)


def _corrected(text: str) -> str | None:
    """The final box was disowned; when a revision follows it ("\\boxed{5}. Wait, that's
    wrong ... **Answer:** 7"), the answer the response states after the revision (an answer
    phrase, ``####`` or a concluding statement; never a bare number) is its answer."""
    from verifier.math.box_context import _stated, correction_after
    from verifier.math.conclusion import _word_value

    later = correction_after(text, all_boxed(text)[-1][1])
    if later is None:
        return None
    later = escape_currency(_BOLD_RE.sub("", later))
    ans = _stated(later) or _word_value(later)
    if ans is None:
        return None
    phrases = list(_PHRASE_RE.finditer(later))
    tail = later[phrases[-1].end():] if phrases else ""
    return None if tail and _revised(ans, tail) else ans


def _prose_around_math(text: str) -> bool:
    """Words outside its math spans: "It is $40$." is a sentence, not an answer (it was read
    as the product 40*I*t*s: a review)."""
    spans = math_spans(text, positions=True)
    if not spans:
        return False
    outside, last = [], 0
    for _, start, end in spans:
        outside.append(text[last:start])
        last = end
    outside.append(text[last:])
    return bool(re.search(r"[A-Za-z]{2,}", "".join(outside)))


def extract_gold(text: str) -> str:
    """The gold answer: all boxes of a worked solution, its ``####`` answer, else all of it."""
    boxes = all_boxed(text)
    if boxes:
        return _join([b[2] for b in boxes])
    gsm = list(_GSM_RE.finditer(text))
    if gsm:
        return _clean_phrase_answer(gsm[-1].group(1))
    return text.strip()
