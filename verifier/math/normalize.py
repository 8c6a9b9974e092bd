"""String clean-up of an answer before it is tokenised.

Policies decided here (documented in docs of ``verifier.math``):

* degrees: ``30^\\circ``, ``30°``, ``30 degrees`` all become ``30``; no radian conversion.
* units and words in ``\\text{...}``/``\\mbox``/``\\mathrm`` (cm, dollars, ...) are dropped,
  as are a few plain unit words after a number; ``\\$`` and ``$`` are dropped.
* thousands separators: ``1,000,000`` (whole answer), ``1{,}000`` and ``1\\,000`` become
  ``1000``; a comma elsewhere separates list items.
* ``\\dfrac``/``\\tfrac``/``\\cfrac`` are ``\\frac``; ``\\left``/``\\right``/spacing vanish.
* number formats: ``10,\\!000`` and ``1 000`` (a space or thin space between groups of
  exactly three digits) are 10000 and 1000; ``3 1/2`` and ``3\\frac{1}{2}`` (an integer
  then a proper fraction) are the mixed number 7/2; ``\\approx 3.14`` is 3.14.
* ``12:00`` (h:mm, optional :ss, am/pm) is a time, compared as written (``time 12:00``);
  other ``a:b`` are ratios.
* a degree mark inside a trigonometric argument converts to radians (``\\sin 30^\\circ``
  is 1/2); elsewhere it is dropped.
* ``101_2`` (digits with a numeric base subscript) is the number in that base.
* labels: ``f(x) = ...`` and ``(a, b) = ...`` are their right-hand side.
* trailing words after a number are units of any noun (``18 eggs``) and are dropped.
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction

from verifier.math.extract import _brace_pairs

_UNICODE = {
    "−": "-", "–": "-", "×": "\\times ", "·": "\\cdot ", "÷": "\\div ", "π": "\\pi ",
    "∞": "\\infty ", "≤": "\\le ", "≥": "\\ge ", "≠": "\\ne ", "√": "\\sqrt ", "∪": "\\cup ",
    "°": "^\\circ", "…": "\\ldots ", "\u00a0": " ", "\u2009": " ", "\u202f": " ",
    # more minus signs, superscript powers, invisible characters (vulgar fractions: _VULGAR)
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2212": "-", "\ufe63": "-", "\uff0d": "-",
    "²": "^{2}", "³": "^{3}", "¹": "^{1}", "⁰": "^{0}", "⁴": "^{4}", "⁵": "^{5}", "⁶": "^{6}",
    "⁷": "^{7}", "⁸": "^{8}", "⁹": "^{9}",
    "\u200b": "", "\u200c": "", "\u200d": "", "\u2060": "", "\ufeff": "",
}
_UNIT_WORDS = (
    r"(?:square\s+|sq\.?\s+|cubic\s+)?(?:units?|cm|mm|km|m|meters?|metres?|centimeters?|"
    r"millimeters?|kilometers?|inch(?:es)?|in|feet|foot|ft|yards?|yd|miles?|mi|mph|kg|g|"
    r"grams?|kilograms?|pounds?|lbs?|ounces?|oz|liters?|litres?|ml|L|seconds?|sec|s|"
    r"minutes?|min|hours?|hrs?|h|days?|weeks?|months?|years?|dollars?|cents?|degrees?|"
    r"deg|radians?|rad|people|students|apples|cookies|marbles|points?|percent)"
)
# unit words only removed after a number/brace/bracket and a space (never "5m" alone)
# a unit may be a ratio of units (km/h, m/s^2)
_UNIT = _UNIT_WORDS + r"(?:\s*\^\s*\{?\d\}?|\d)?(?:\s*/\s*" + _UNIT_WORDS + r"(?:\s*\^\s*\{?\d\}?|\d)?)?"
_TRAILING_UNITS_RE = re.compile(
    r"(?:(?<=[\d}\)\]%])|(?<=\\pi)|(?<=π))\s+(?:" + _UNIT + r")(?:\s+" + _UNIT + r"){0,3}\.?\s*$"
)
_TEXT_CMD_RE = re.compile(r"\\(?:text|textbf|textit|textrm|mbox|mathrm|textnormal|mathit)\s*\{")
_THOUSANDS_WHOLE_RE = re.compile(r"^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$")
_THOUSANDS_PREFIX_RE = re.compile(r"^(-?\d{1,3}(?:,\d{3})+(?:\.\d+)?)(\s*[%a-zA-Z\\].*)$")
# words, or a unit like m/s^2 or km/h (letters with / ^ and small powers)
_UNITISH_RE = re.compile(r"[A-Za-z][A-Za-z .']*(?:\s*[/^]\s*\{?[A-Za-z0-9]+\}?)*")
_SPACING_RE = re.compile(r"(?<!\\)\\(?:quad|qquad|[,;:! ])|~")
_WRAPPERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))


_KNOWN_FUNCTIONS = {"sin", "cos", "tan", "cot", "sec", "csc", "arcsin", "arccos", "arctan", "sinh",
                    "cosh", "tanh", "log", "ln", "exp"}


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
        if re.fullmatch(r"[A-Za-z]+", content) and re.match(r"\s*\(", s[j:]):
            # \mathrm{floor}(9\pi) is a function of 9\pi, never 9\pi itself (hostile review:
            # it was paid for 9\pi); a function the parser knows keeps its meaning
            out.append(f"\\{low}" if low in _KNOWN_FUNCTIONS else f" {content}")
        elif not "".join(out).strip() and re.search(r"[:=]\s*$", content):
            out.append(" ")  # \text{Answer: } 5
        elif not "".join(out).strip() and j < len(s) and s[j:].strip():
            # words before the answer's math (\text{neq } 5, \text{all but } 5) may change
            # its meaning: kept, so the answer reads as prose, unless they end in ":" or "="
            out.append(" " + content + " ")
        elif low in ("or", "and", ",", "or,"):
            out.append(f" {low} ")
        elif len(content) == 1 and content.isalpha() and (
                content in "eiMBK" or not re.search(r"[\d}]\s*$", s[: m.start()])):
            # \mathrm{e} is Euler's e, 3\text{M} is 3 million (a review), not a unit
            out.append(" " + content + " ")
        elif (_UNITISH_RE.fullmatch(content) and not _is_whole(s, m.start(), j)
              and not any(_changes_value(w) for w in re.findall(r"[a-z]+", low))
              and not re.search(r"\b(?:if|when|unless|assuming|approx|is|are|was)\b", low)):
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


_TRIG_RE = re.compile(r"\\(?:sin|cos|tan|cot|sec|csc)(?![a-zA-Z])|(?<![a-zA-Z\\])(?:sin|cos|tan)(?![a-z])")
_DEG_NUM_RE = re.compile(r"(?<!\d)(\d++(?:\.\d++)?+|\{[^{}]*+\})\s*+(?:\^\s*\{?\s*\\circ\s*\}?|\\degree|°)")
_TIME_RE = re.compile(r"(\d{1,2})\s*+:\s*+(\d{2})(?:\s*+:\s*+(\d{2}))?+\s*+((?:a|p)\.?\s*+m\.?)?", re.I)
_BASE_RE = re.compile(r"^([0-9A-Za-z]+)_\{?(\d{1,2})\}?$")
# A label before the answer: "f(x) =", "f(3) =", "g^{-1}(x) =", "(a, b) =". A letter that
# usually names a variable or a constant is no function name before a number: x(3) = 22
# reads as 3x = 22 and e(3) as 3e (hostile review: both were paid for 22). A tuple of names
# labels only a tuple.
_FN_NAME = r"[A-Za-z](?:_\{?\w+\}?)?(?:\^\s*\{\s*-1\s*\})?"
_LABEL_RE = re.compile(
    rf"^\s*(?:{_FN_NAME}\s*\(\s*[A-Za-z](?:\s*,\s*[A-Za-z])*\s*\)"
    rf"|(?![abcdeikmnxyzXYZ][_^(\s])(?!\\)(?:{_FN_NAME})\s*\(\s*[-+]?[\d./]+(?:\s*,\s*[-+]?[\d./]+)*\s*\)"
    r"|\(\s*[A-Za-z](?:_\{?\w+\}?)?(?:\s*,\s*[A-Za-z](?:_\{?\w+\}?)?)+\s*\)(?=\s*=\s*(?:\\left\s*)?[(\[])"
    # a segment or angle of a figure: "AB =", "\angle ABC =", "m\angle A =", "\overline{AB} ="
    r"|(?:m?\\angle\s*[A-Z]{1,3}|[A-Z]{2,3}|\\overline\s*\{\s*[A-Z]{2}\s*\})(?![A-Za-z]))"
    r"\s*=\s*(?=[^=]+$)")
# words that change the value or the meaning of the number before them: never a unit
_NOT_UNIT_WORDS = {
    "or", "and", "pi", "i", "e", "x", "y", "z", "n", "k", "sqrt", "inf", "infinity", "infty",
    "sin", "cos", "tan", "log", "ln", "exp", "times", "plus", "minus", "over", "divided",
    "squared", "cubed", "root", "roots", "power", "powers", "factorial", "mod", "modulo",
    "not", "no", "never", "less", "more", "than", "least", "most", "at", "to", "by", "of",
    "hundred", "hundreds", "thousand", "thousands", "million", "millions", "billion",
    "billions", "trillion", "dozen", "dozens", "half", "halves", "thirds", "fourths",
    "fifths", "tenths", "hundredths", "thousandths", "percent", "wrong", "incorrect",
    "approximately", "about", "roughly", "or", "either", "maybe", "possibly", "except",
    # a review's finds (each was paid for the bare number) and their siblings
    "halved", "doubled", "tripled", "quadrupled", "twice", "thrice", "double", "triple",
    "inverse", "inverted", "reciprocal", "negative", "negated", "opposite", "fewer", "under",
    "below", "above", "nearly", "almost", "around", "circa", "false", "quarter", "quarters",
    "third", "sixths", "sevenths", "eighths", "ninths", "lakh", "lakhs", "crore", "crores",
    "gross", "score", "scores", "thousandth", "millionth", "billionth", "percentile",
    # a review's finds: parts per ..., basis points, per mille (each was paid for the number)
    "ppm", "ppb", "ppt", "basis", "bp", "bps", "permille", "mille", "pct", "percents",
    # a second review's: more scale words and bounds (each was paid for the bare number)
    "tens", "myriad", "myriads", "grand", "googol", "googols", "googolplex", "bn", "mn", "mil",
    "minimum", "maximum", "min", "max", "upwards", "upward", "onwards", "ish", "odd",
    # a third review's: abbreviations, foreign scale words, repeating marks, multipliers
    "mln", "thou", "millones", "millon", "millón", "repeating", "recurring", "repeated",
    "point", "fold",
    # a fourth review's: scale and base words, value-changing plurals, and words that disown
    # or hedge the number before them (each was paid for the bare number)
    "lac", "lacs", "wan", "kilo", "mega", "giga", "milli", "millis", "micro", "nano", "ks", "permil",
    "binary", "hexadecimal", "hex", "octal", "base", "squares", "cubes", "inverses", "negatives",
    "squareroot", "exponentiated", "percentiles", "rejected", "perhaps", "presumably", "probably",
    "invalid", "excluded", "disproved", "erroneous", "tentatively", "tentative", "unverified",
    "nope", "crossed", "extra", "short", "too", "false", "wrongly", "doubtful", "unlikely", "rec",
    "recur", "recurs", "cannot", "unless", "seems", "seem", "off", "lower",
    "upper", "bound", "bounds", "hopefully", "unsure", "guess", "tbd", "maybe", "might", "could",
    "would", "should", "wrong", "incorrect", "right", "xx", "approx",
    # an eighth review: "or more" / "at least" in other languages after the value ("5 oder
    # mehr", "5 al menos", "5 au moins", "5 mindestens"), and "jk" (just kidding)
    "oder", "mehr", "weniger", "mindestens", "höchstens", "hochstens", "menos", "más", "mas",
    "moins", "almeno", "meno", "più", "piu", "minst", "minstens", "hoogstens", "jk", "jkjk"}


# "5 twelfths", "5 millionths": an ordinal after a number makes a fraction of it ("seconds"
# is the unit far more often, so not "second")
_ORDINAL_RE = re.compile(r"(?:[a-z]+-)?(?:third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|"
                         r"twelfth|(?:thir|four|fif|six|seven|eigh|nine)teenth|(?:twen|thir|for|fif|six|"
                         r"seven|eigh|nine)tieth|hundredth|thousandth|millionth|billionth|trillionth)s?")


# every "-illion" scale word (quadrillion, sextillion, ..., and their plurals)
_ILLION_RE = re.compile(r"[a-z]*illions?")


def _changes_value(word: str) -> bool:
    w = word.lower()
    if "-" in w:  # "thousand-odd", "million-plus": any part, or the parts joined ("tho-usand")
        return (any(_changes_value(part) for part in w.split("-") if part)
                or _changes_value(w.replace("-", "")))
    if _SCALE_END_RE.search(w):
        return True  # "tenthousand", "hundredthousand"
    return (w in _NOT_UNIT_WORDS or w.endswith("fold") or bool(_ORDINAL_RE.fullmatch(w)
                                                                 or _ILLION_RE.fullmatch(w)))


_SCALE_END_RE = re.compile(r"(?:hundred|thousand|illion|lakh|crore)s?$")

changes_value = _changes_value  # for the box-operand check in extract


_NUMBER_WORDS = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
_COLON_RE = re.compile(r"\\colon(?![a-zA-Z])")
# {x | x > -5}, {x : ...}, {x \in R \mid ...} (after \left, \middle, \right are dropped): the
# condition is the answer, read as the set of reals it describes. Only over the reals:
# {x \in Z | 1 < x < 4} is {2, 3}, not an interval, and stays as written (unparsed).
_SET_BUILDER_RE = re.compile(
    r"\s*+([A-Za-z])\s*+(?:\\in\s*+(?:\\mathbb\s*+\{?\s*+R\s*+\}?|\\R(?![a-zA-Z])|\\Re(?![a-zA-Z])|R)\s*+)?+"
    r"(?:\\mid(?![a-zA-Z])|\||:)")
_INFIX_RE = re.compile(r"\\(over|choose)(?![a-zA-Z])")
_PAREN_REPEAT_RE = re.compile(r"(?<![\d.])(-?\d*+)\.(\d*+)\((\d++)\)")
_REPEATING_RE = re.compile(r"(?<!\d)(-?)(\d*+)\.(\d*+)\\overline\s*+\{(\d++)\}")


def _repeating(m: re.Match) -> str:
    """``0.1\\overline{6}`` -> ``\\frac{1}{6}``: the exact value of a repeating decimal."""
    from fractions import Fraction

    sign, whole, fixed, rep = m.groups()
    v = Fraction(int(whole or "0")) + (Fraction(int(fixed), 10 ** len(fixed)) if fixed else 0)
    v += Fraction(int(rep), (10 ** len(rep) - 1) * 10 ** len(fixed))
    return f"{sign}\\frac{{{v.numerator}}}{{{v.denominator}}}"


def _infix(s: str) -> str:
    """TeX's infix ``{a \\over b}`` / ``{n \\choose k}`` as ``\\frac{a}{b}`` / ``\\binom{n}{k}``: the
    operator splits the brace group around it (or the whole answer). Two in one group is a
    TeX error and is left as written."""
    for _ in range(64):
        m = _INFIX_RE.search(s)
        if m is None:
            return s
        # the innermost brace group around the operator, else the whole answer
        pairs = _brace_pairs(s)
        opens = [o for o, c in pairs.items() if o < m.start() and c >= m.end()]
        start, end = (max(opens) + 1, pairs[max(opens)]) if opens else (0, len(s))
        num, den = s[start : m.start()].strip(), s[m.end() : end].strip()
        if not num or not den or _INFIX_RE.search(num) or _INFIX_RE.search(den):
            return s
        cmd = "\\frac" if m.group(1) == "over" else "\\binom"
        s = f"{s[:start]}{cmd}{{{num}}}{{{den}}}{s[end:]}"
    return s


_REALS_WITHOUT_RE = re.compile(r"\s*+\\mathbb\s*+(?:\{\s*+R\s*+\}|R)\s*+(?:\\setminus|\\backslash|-)\s*+"
                               r"\\\{([^{}\\]*+)\\\}\s*+")
_PLAIN_NUMBER_RE = re.compile(r"\s*+(-?\s*+\d++(?:\.\d++)?+)\s*+")
_REALS_MINUS_INTERVAL_RE = re.compile(r"\s*+\\mathbb\s*+(?:\{\s*+R\s*+\}|R)\s*+(?:\\setminus|\\backslash|-)\s*+"
                                      r"([\[(])([^,\[\]()]++),([^,\[\]()]++)([\])])\s*+")


def _reals_without(s: str) -> str:
    """``\\mathbb{R} \\setminus \\{-4, 2\\}`` as the union of the open intervals it leaves;
    ``\\mathbb{R} \\setminus [a, b]`` as the two rays outside it, each end flipped (a closed
    end removed is an open end left)."""
    iv = _REALS_MINUS_INTERVAL_RE.fullmatch(s)
    if iv:
        lo, a, b, hi = iv.groups()
        return (f"(-\\infty, {a.strip()}{')' if lo == '[' else ']'} \\cup "
                f"{'(' if hi == ']' else '['}{b.strip()}, \\infty)")
    m = _REALS_WITHOUT_RE.fullmatch(s)
    if not m:
        return s
    points = [_PLAIN_NUMBER_RE.fullmatch(x) for x in m.group(1).split(",")]
    if not all(points) or len(points) > 50:
        return s
    from fractions import Fraction

    values = sorted({Fraction(p.group(1).replace(" ", "")) for p in points})
    ends = ["-\\infty"] + [str(v.numerator) if v.denominator == 1 else f"{float(v)!r}" for v in values] + ["\\infty"]
    return " \\cup ".join(f"({a}, {b})" for a, b in zip(ends, ends[1:]))


def _set_builder(s: str) -> str:
    t = s.strip()
    if not (t.startswith("\\{") and t.endswith("\\}")):
        return s
    inner = _SPACING_RE.sub(" ", t[2:-2])  # \{ x \,|\, x > 1 \}
    m = _SET_BUILDER_RE.match(inner)
    cond = inner[m.end():].strip() if m else ""
    if cond and re.search(r"(?<![A-Za-z\\])" + m.group(1) + r"(?![A-Za-z])", cond):
        return cond
    return s


_TEXT_WRAP = r"\\(?:text|mbox|mathrm|textnormal)\s*+"


def plain_text(s: str) -> str:
    """Spacing commands and empty ``\\text{ }`` dropped, a ``\\text{...}`` around the whole
    unwrapped: ``\\text{9:57}``, ``9:57 \\text{ }`` and ``3\\!:\\!11`` are 9:57 and 3:11."""
    s = re.sub(_TEXT_WRAP + r"\{\s*+\}", " ", s)
    s = _SPACING_RE.sub(" ", s).strip()
    m = re.fullmatch(_TEXT_WRAP + r"\{([^{}]*+)\}", s)
    return m.group(1).strip() if m else s


# a.m./p.m. written as text inside math: "3:30\\text{ p.m.}", "4:40 \\mathrm{PM}" (once read as the
# ratio 3/30, so "2:20" was paid for a 3:30 p.m. gold: a hostile review)
_TIME_TEXT_RE = re.compile(r"\\(?:text[a-z]*+|math[a-z]*+|mbox|rm|it|bf)\s*+\{([^{}]*+)\}")


def time_of_day(s: str) -> str | None:
    """``h:mm[:ss][am|pm]`` as a canonical string, None when ``s`` is not a time."""
    s = _TIME_TEXT_RE.sub(lambda m: " " + m.group(1) + " ", _COLON_RE.sub(":", s))
    m = _TIME_RE.fullmatch(re.sub(r"\\[,;:! ]|~", " ", s).strip())
    if not m or int(m.group(2)) > 59 or (m.group(3) and int(m.group(3)) > 59):
        return None
    ampm = (m.group(4) or "").replace(".", "").replace(" ", "").lower()
    return f"time {int(m.group(1))}:{m.group(2)}" + (f":{m.group(3)}" if m.group(3) else "") + ampm


def base_number(s: str) -> tuple[str, int] | None:
    """``101_2`` -> ("101", 2) when the digits are valid in that base (2..36)."""
    m = _BASE_RE.fullmatch(re.sub(r"^\s*\(([0-9A-Za-z]+)\)(?=_)", r"\1", s))  # (623)_{7}
    if not m or not 2 <= int(m.group(2)) <= 36:
        return None
    digits = m.group(1)
    if not any(c.isdigit() for c in digits) and not (len(digits) > 1 and digits.isupper()):
        return None  # a_{11}, x_{36}: a subscripted name (a sequence's term), not a number
    try:
        int(m.group(1), int(m.group(2)))
    except ValueError:
        return None
    return m.group(1).upper(), int(m.group(2))


def _number_formats(s: str) -> str:
    """Thousands groups, mixed numbers and approximation marks spelled one way."""
    s = re.sub(r"(\d),\s*\\!\s*(?=\d{3}(?!\d))", r"\1", s)  # 10,\!000 (MATH's own format)
    s = re.sub(r"(\d)\{,\}(?=\d{3})", r"\1", s)
    s = re.sub(r"(\d)\\[,!;: ](?=\d{3}(?!\d))", r"\1", s)
    # mixed numbers: "3 1/2", "3\frac{1}{2}", "3\frac12" with a proper fraction
    def mixed(m: re.Match) -> str:
        whole, num, den = m.group(1), m.group(2), m.group(3)
        if int(den) == 0 or int(num) >= int(den):
            return m.group(0)
        return f"({whole}+\\frac{{{num}}}{{{den}}})"
    s = re.sub(r"(?<![\d.}])(\d+)\s+(\d+)\s*/\s*(\d+)(?![\d.])", mixed, s)
    s = re.sub(r"(?<![\d.}^_])(\d+)\s*\\frac\s*\{\s*(\d+)\s*\}\s*\{\s*(\d+)\s*\}", mixed, s)
    s = re.sub(r"(?<![\d.}^_])(\d+)\s*\\frac(\d)(\d)(?!\d)", mixed, s)
    # thousands groups separated by a space: only groups of exactly three digits
    s = re.sub(r"(?<![\d.,])\d{1,3}(?: \d{3})+(?![\d.]| ?/)",
               lambda m: m.group(0).replace(" ", ""), s)
    s = re.sub(r"^\s*(?:\\approx|\\sim|\\simeq|≈|approximately|about|approx\.?)\s*", "", s)
    s = re.sub(r"\\approx|\\simeq|≈", "=", s)
    return s


def _degrees_in_trig(s: str) -> str:
    if not _TRIG_RE.search(s):
        return s
    return _DEG_NUM_RE.sub(lambda m: f"({m.group(1)}\\cdot\\frac{{\\pi}}{{180}})", s)


# a condition on the solver's own working ("if we count carefully", "if I am right") is a
# remark; any other condition ("if order matters", "when n is odd") makes the answer conditional
_CONDITION = {"if", "when", "whenever", "unless", "provided", "assuming", "otherwise", "only"}
_SOLVER_CONDITION = {"if", "when", "provided", "assuming"}
_SOLVER = {"we", "i", "you", "one", "i'm", "we're", "you're", "im"}


def _drop_trailing_words(s: str) -> str:
    """``18 eggs`` -> ``18``: plain words after a number or bracket are a unit."""
    m = re.fullmatch(r"(.*?[\d}\)\]])((?:\s+[A-Za-z][A-Za-z\-']*\.?){1,4})\s*", s, re.S)
    if not m:
        return s
    from verifier.math.latex import is_math_word

    words = [w.strip(".") for w in m.group(2).split()]
    if words[0].lower() in _CONDITION:  # "5 if order matters" (check 7's attacks: paid as 5)
        solver = len(words) > 1 and words[0].lower() in _SOLVER_CONDITION and words[1].lower() in _SOLVER
        return m.group(1) if solver else s  # "5 if we count carefully": a remark on the working
    if any(_changes_value(w) or len(w) == 1 or is_math_word(w) for w in words):
        return s  # "2 theta", "3 or 4" are math, not units
    return m.group(1)


# a whole answer "79 thousand", "2.5 \\text{ million}": the number times the scale
_SCALES = {"thousand": 3, "million": 6, "billion": 9, "trillion": 12,
           # the same in other languages ("3 \\text{ tausend}" was paid as 3: a seventh review)
           "tausend": 3, "mille": 3, "mil": 3, "mila": 3, "duizend": 3, "tusen": 3, "tusind": 3, "tuhat": 3,
           "bin": 3, "тысяч": 3, "тысячи": 3, "тысяча": 3, "tysiąc": 3, "tysięcy": 3, "tysiące": 3,
           "千": 3, "万": 4, "萬": 4, "億": 8, "亿": 8, "百万": 6, "millionen": 6, "millions": 6,
           "millón": 6, "millones": 6, "milione": 6, "milioni": 6, "milhão": 6, "milhões": 6,
           "миллион": 6, "миллиона": 6, "миллионов": 6, "miljoen": 6, "milyon": 6, "miljoona": 6,
           "milliarde": 9, "milliarden": 9, "milliard": 9, "milliards": 9, "миллиард": 9, "miliardo": 9}
_SCALE_NAMES = "|".join(sorted(map(re.escape, _SCALES), key=len, reverse=True))
_SCALE_WORD_RE = re.compile(r"^\s*+(-?\d++(?:\.\d++)?+)\s*+(?:\\(?:text|mbox|mathrm|textnormal)\s*+\{\s*+"
                            r"(" + _SCALE_NAMES + r")\s*+\}|(" + _SCALE_NAMES + r"))\s*+$", re.I)


def _scale_word(m: re.Match) -> str:
    return f"{m.group(1)} \\times 10^{{{_SCALES[(m.group(2) or m.group(3)).lower()]}}}"


# A Unicode root covers the whole number or letter after it: √10 is \sqrt{10}, never the
# LaTeX reading of \sqrt 10 (\sqrt{1} 0, i.e. 0): "7√10" was judged 0, "3√21" 3√2 (a review).
# √(x+1) covers its parenthesis.
_UNICODE_ROOT_RE = re.compile(r"√\s*(\d+(?:\.\d+)?|[A-Za-z](?![A-Za-z]))")


def _unicode_roots(s: str) -> str:
    s = _UNICODE_ROOT_RE.sub(r"\\sqrt{\1}", s)
    out, i = [], 0
    while (j := s.find("√", i)) >= 0:
        k = j + 1
        while k < len(s) and s[k] == " ":
            k += 1
        if k < len(s) and s[k] == "(":
            depth, end = 0, -1
            for m in range(k, len(s)):
                depth += {"(": 1, ")": -1}.get(s[m], 0)
                if depth == 0:
                    end = m
                    break
            if end > 0:
                out.append(s[i:j] + "\\sqrt{" + s[k + 1:end] + "}")
                i = end + 1
                continue
        out.append(s[i:j + 1])
        i = j + 1
    out.append(s[i:])
    return "".join(out)


# Unicode vulgar fractions, and a whole number right before one: a mixed number ("3½" is
# 3 + 1/2, "-2½" is -(2 + 1/2); "3½" was once 3 times 1/2: a hostile review)
_VULGAR = {c: "(%d/%d)" % Fraction(unicodedata.numeric(c)).limit_denominator(12).as_integer_ratio()
           for c in "½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅐⅛⅜⅝⅞⅑⅒"}
_MIXED_UNICODE_RE = re.compile(r"(-?)(\d+)\s?([" + "".join(_VULGAR) + "])")


def _unicode_fractions(s: str) -> str:
    s = _MIXED_UNICODE_RE.sub(lambda m: "%s(%s+%s)" % (m.group(1), m.group(2), _VULGAR[m.group(3)][1:-1]), s)
    return "".join(_VULGAR.get(c, c) for c in s)


def normalize(s: str) -> str:
    """Canonical spelling of an answer string; raises nothing, may return ''."""
    if "√" in s:
        s = _unicode_roots(s)
    if any(c in _VULGAR for c in s):
        s = _unicode_fractions(s)
    if "–" in s or "—" in s:
        # an en/em dash between two numbers is a range ("1–5"), never their difference (-4
        # was paid for it: a seventh review); elsewhere it is a minus sign
        s = re.sub(r"(?<=\d)\s*+[–—]\s*+(?=\d)", r" \\text{ to } ", s)
    if "+-" in s or "+/-" in s:
        s = re.sub(r"\+/?-", r"\\pm ", s)  # ASCII plus-minus (+-3 was read as -3); "5 + -3" stays
    for k, v in _UNICODE.items():
        s = s.replace(k, v)
    s = strip_wrappers(s)
    # "= 5" names the value 5 (a display line "$$= 5$$"), so does "$\therefore$ 5"
    s = re.sub(r"^\s*(?:(?:\\therefore|∴)\s*+\$?+\s*+)?+(?:=\s*+(?!=))?+", "", s)
    s = _SCALE_WORD_RE.sub(_scale_word, plain_text(s)) if _SCALE_WORD_RE.fullmatch(plain_text(s)) else s
    s = re.sub(r"\\cfrac", r"\\frac", s)
    s = _PAREN_REPEAT_RE.sub(r"\1.\2\\overline{\3}", s)  # 0.(3) is 0.333...: a repeating part
    s = _REPEATING_RE.sub(_repeating, s)
    word = re.sub(r"\\text\s*\{\s*([a-z]+)\s*\}", r"\1", s.strip().lower()).strip(" .")
    if word in _NUMBER_WORDS:  # "six" is 6 (never s*i*x)
        s = _NUMBER_WORDS[word]
    s = _degrees_in_trig(s)
    s = _number_formats(s)
    m = re.fullmatch(r"\\(?:boxed|fbox)\s*\{(.*)\}", s, re.S)
    if m and _balanced(m.group(1)):  # an already-extracted answer still in its box
        s = strip_wrappers(m.group(1))
    s = s.replace("\\lbrace", "\\{").replace("\\rbrace", "\\}")
    s = s.replace("\\lvert", "|").replace("\\rvert", "|")
    s = s.replace("\\langle", "(").replace("\\rangle", ")")  # a vector <1, 2> is a tuple
    s = re.sub(r"\\(?:displaystyle|textstyle|scriptstyle|bf|rm|it)(?![a-zA-Z])", " ", s).replace("\\limits", "")
    s = re.sub(r"\\num\s*\{([^{}]*)\}", r"\1", s)  # siunitx's \num{3}
    s = re.sub(r"\\log\s*_\s*(\d)", r"\\log_{\1}", s)  # \log_2 8: the subscript is one digit
    s = re.sub(r"\\[dt]frac", r"\\frac", s)
    s = re.sub(r"\\[dt]binom", r"\\binom", s)
    s = re.sub(r"\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big)\s*\.", " ", s)
    s = re.sub(r"\\(?:left|right|middle|bigl|bigr|Bigl|Bigr|big|Big)(?![a-zA-Z])", "", s)
    s = _COLON_RE.sub(":", s)
    s = _reals_without(s)
    s = _infix(s)
    s = _set_builder(s)
    s = re.sub(r"\\(?:mathbf|boldsymbol|bm|mathbfit)\s*", "", s)
    # degrees
    s = re.sub(r"\^\s*\{?\s*\\circ\s*\}?", "", s)
    s = re.sub(r"\\degree|\\circ", "", s)
    s = s.replace("\\%", "%").replace("\\$", " ").replace("$", " ")
    # thousands separators written the LaTeX way
    s = re.sub(r"(\d)\{,\}(?=\d{3})", r"\1", s)
    s = re.sub(r"(\d)\\[,!;: ](?=\d{3}(?!\d))", r"\1", s)
    s = re.sub(r"(?<!\s)\s*+(?:\\(?:text|mbox|mathrm)\s*+\{\s*+percent\s*+\}|(?<![a-z])percent(?![a-z]))",
               "%", s)
    # "\text{Answer} = 1024" (a display's label, an out-of-sample probe): the value follows it
    s = re.sub(r"^\s*+\\(?:text|textbf|textrm|mathrm|mbox)\s*+\{\s*+(?:the\s+)?(?:final\s+)?answer\s*+:?\s*+\}\s*+[:=]\s*+",
               "", s, flags=re.IGNORECASE)
    s = _replace_text_commands(s)
    s = _SPACING_RE.sub(" ", s)
    s = _number_formats(s)
    s = s.strip()
    s = re.sub(r"\\?\.\s*$", "", s).strip()  # trailing full stop
    s = _TRAILING_UNITS_RE.sub("", s).strip()
    s = _drop_trailing_words(s).strip()
    s = _LABEL_RE.sub("", s)
    if re.fullmatch(r"\(.*\)", s) and ";" in s and "," not in s:
        s = s.replace(";", ",")  # (1; 2) is the pair (1, 2)
    # "x \in [1, 2)" is the set; only before a set, interval or named set (`x \in 3` is no answer)
    s = re.sub(r"^[a-zA-Z]\s*\\in(?![a-zA-Z])\s*(?=[\[\(\{]|\\(?:\{|left|lbrace|mathbb|emptyset|varnothing|varnothing)|[A-Z]\b)", "", s)
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
    if re.fullmatch(r"[A-Za-z][A-Za-z '\-.]*", t) and (re.search(r"[A-Za-z]{3,}", t) or t.lower() == "no"):
        from verifier.math.latex import is_math_word

        words = re.findall(r"[A-Za-z]+", t)
        if all(is_math_word(w) for w in words) or t.lower() in _NUMBER_WORDS:
            return None
        return " ".join(w.lower() for w in words)
    return None


# A multiple-choice gold ("C", "(C)", "\textbf{(C)}") and a prediction that gives the option
# with its value ("(C) 12", "C) 12", "\textbf{(C)} 12"): the letter is the answer (a review:
# refused as the product 12C). The value must be plain: no other option, no words.
_OPTION_RE = re.compile(r"\s*(?:\\text(?:bf|rm)?\s*\{\s*)?(?:\(\s*([A-E])\s*\)|([A-E])\s*\))\s*\}?\s*")
_OPTION_GOLD_RE = re.compile(r"\s*(?:\\text(?:bf|rm)?\s*\{\s*)?\(?\s*([A-E])\s*\)?\s*\}?\s*")


def option_with_value(gold: str, pred: str) -> str | None:
    """The option letter of ``pred`` when ``gold`` is an option letter, else None."""
    if not _OPTION_GOLD_RE.fullmatch(gold):
        return None
    m = _OPTION_RE.match(pred)
    if not m:
        return None
    rest = pred[m.end():].strip().strip("$").rstrip(".").strip()
    if not _OPTION_VALUE_RE.fullmatch(rest):
        return None  # "(C) 12 / 15", "(C) \neq 12", "(C) 12 ✗", "(C) ?": not one plain value
    return m.group(1) or m.group(2)


# the value an option states: one number, fraction, root or multiple of pi, nothing else
_OPTION_VALUE_RE = re.compile(
    r"\\?\$?-?(?:\d[\d,]*(?:\.\d+)?(?:\s*\\?%)?|\\[dt]?frac\s*\{\d+\}\s*\{\d+\}"
    r"|\d*\s*\\sqrt\s*\{\d+\}|\d*\s*\\pi)")
