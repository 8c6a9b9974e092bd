"""The answer a response states without a marker: its concluding statement (extraction step 5).

When a response has no box, no ``####`` and no answer phrase, its answer is the value its
last statement gives, and only if that statement commits to it:

- the last value of the response is the last math span, or a number in the prose after it
  ("Therefore the number of ways is 3.", "= 297.5", "**Minimum value:** -87",
  "$\\therefore$ 45 percent");
- a value in prose is what follows the sentence's last stating word (is, are, =, :, gives,
  get, ``\\therefore``), and must read as an answer on its own;
- a math span is the answer (a leading ``=`` or ``\\therefore`` dropped), or, with the spans
  right before it joined only by commas, "and" or "or", a list of answers;
- nothing is an answer when its sentence, or anything after it, hedges or disowns it
  ("Candidates: $A$ and $B$. Both seem plausible.", "The naive approach would give $G$",
  "Note: a common mistake is to answer $G$", "If we had not excluded ... $G$"), or a
  negation stands right before it ("$4$, not $3$").

Why not the last math span anywhere, as before: a review's corpus of model-style endings
showed that rule paying a rejected value written after the real answer (15 items), a value
from the reasoning when the answer was in prose (4), and one of two uncommitted candidates
(21), while refusing 105 right answers stated in prose.
"""

from __future__ import annotations

import bisect
import re

from verifier.math.extract import (_DISOWNED_AFTER_RE, _HEDGE_RE, _NUMBER_WORD_RE, _REVISION_RE,
                                   _clean_phrase_answer, _negated_before, looks_like_bare_answer,
                                   math_spans)

# spans that only hold a connective: "$\therefore$ 375"
_CONNECTIVE_RE = re.compile(r"\s*(?:\\therefore|\\because|\\implies|\\Rightarrow|\\Longrightarrow|∴)\s*")
_NUMBER_RE = re.compile(r"(?<![\w.\\^_])-?\d[\d,]*(?:\.\d+)?(?:_\{?\d{1,2}\}?)?(?![A-Za-z0-9_])")  # 134_9: base
# what states a value in prose; the value is what follows the last of them in the sentence
_STATES_RE = re.compile(
    r"(?:\b(?:is|are|was|were|equals?|be|gets?|got|obtain(?:s|ed)?|gives?(?:\s+us)?|yields?|"
    r"makes?|totals?|comes\s+to|becomes?)\b|(?<![<>!/=])=(?![<>=])|(?<![\d\s])\s*+:|\\therefore|∴)",
    re.IGNORECASE)
_LIST_GLUE_RE = re.compile(r"(?:\s|,|;|\band\b|\bor\b|\\quad|\\qquad)*", re.IGNORECASE)
_SENTENCE_END_RE = re.compile(r"[.!?](?=\s)|\n\s*\n")


def _sentence_start(text: str, pos: int, spans: list[tuple[str, int, int]]) -> int:
    """Where the sentence holding ``pos`` starts: after the last sentence end before it that
    is not inside a math span (``$$x = 3.\\n$$`` ends no sentence)."""
    starts = [s for _, s, _ in spans]  # math_spans gives them left to right, not overlapping
    start = 0
    for m in _SENTENCE_END_RE.finditer(text, 0, pos):
        if _ABBREV_RE.search(text, max(0, m.start() - 8), m.start() + 1):
            continue  # "cf.", "e.g.", "Prop.": no sentence ends there
        k = bisect.bisect_right(starts, m.start()) - 1  # the span that could hold it (linear
        if k < 0 or m.start() >= spans[k][2]:           # overall: 200 KB of "$1$. " took 68 s)
            start = m.end()
    return start


_ABBREV_RE = re.compile(r"\b(?:cf|e\.g|i\.e|etc|vs|approx|prop|thm|lem|fig|eq|resp|no|ca|viz|al)\.$",
                        re.IGNORECASE)


def _hedged_before(text: str, start: int) -> bool:
    """A hedge in the words right before the sentence ("Possibly:\n\nthe count is 3.", "I
    might be wrong... the count is $3$.")."""
    return bool(_HEDGE_RE.search(text[max(0, start - 60):start]))


def _hedged(*parts: str) -> bool:
    return any(_HEDGE_RE.search(p) for p in parts)


# closing formulas that state nothing (a sentence of its own; "I hope five is also acceptable"
# and "In summary, the count is five." are statements: a fourth review)
_PLEASANTRY_RE = re.compile(r"\bI\s+hope\s+(?:it|this|that)\s+(?:is\s+(?:correct|right|helpful|clear)|helps)"
                            r"\s*+[.!]?(?=\s|$)|\bLet\s+me\s+know\s+if\s+you\s+have\s+(?:any\s+)?questions"
                            r"\s*+[.!]?(?=\s|$)"
                            # a sentence that points back at the value above ("So this is our final
                            # answer.": an out-of-sample probe read "our final answer" as the answer)
                            r"|(?<![\w,])(?:(?:so|thus|hence|and)\s+)?(?:this|that|it)\s+is\s+(?:our|my|the)\s+"
                            r"(?:final\s+)?(?:answer|result)\s*+[.!]?(?=\s|$)", re.IGNORECASE)


def _inert(tail: str) -> bool:
    """Text after the value that states nothing more: no hedge, no other statement ("Then
    there are 11 more steps. ... Therefore she faces south." is not 11), pleasantries and
    check lines that only verify ("Check: at $x = 4$: equality holds ✓") aside."""
    from verifier.math.extract import _CHECK_LINE_RE, _plain_check

    tail = _CHECK_LINE_RE.sub(_plain_check, tail)
    if _hedged(tail):
        return False
    rest = _PLEASANTRY_RE.sub(" ", tail)
    return not (_STATES_RE.search(rest) or _CONCLUDES_RE.search(rest) or re.search(r"\d|\\boxed", rest)
                or _NUMBER_WORD_RE.search(rest) or _OPERATION_RE.search(rest) or _REVISION_RE.search(rest)
                or _TAKEN_BACK_RE.search(rest))


# a later sentence that takes the value back ("Nope.", "Scratch that.", "I messed up")
_TAKEN_BACK_RE = re.compile(r"\b(?:no|nope|nah|contradict\w*|messed|doubt\w*|error|errors|oops|"
                            r"scratch|retract\w*|disregard|ignore|mistake\w*|wrong|incorrect)\b",
                            re.IGNORECASE)


# a later sentence that does arithmetic on the value ("Then multiply by four.")
_OPERATION_RE = re.compile(r"\b(?:multipl\w*|divid\w*|add\w*|subtract\w*|doubl\w*|tripl\w*|halv\w*|"
                           r"squar\w*|cub\w*|times|plus|minus|twice|more|less|fewer|works?|fits?|"
                           r"also|too)\b", re.IGNORECASE)


# a later sentence that concludes something else ("Therefore she faces south.")
_CONCLUDES_RE = re.compile(r"\b(?:therefore|thus|hence|so|finally|consequently|overall|in\s+conclusion|"
                           r"final)\b|\\therefore|∴", re.IGNORECASE)


# what may follow the concluding span in its own sentence: nothing, a unit or a plain noun
# or two ("$602$ pieces"), or a remark that it is the answer
_SPAN_TAIL_RE = re.compile(
    r"\s*+(?:(?:[A-Za-z][a-z]*+(?:\s+[a-z]+)?)(?<!\bor)(?:\s+(?:in\s+total|altogether|in\s+all))?|,?\s*(?:which\s+is|as|is)\s+(?:the|our|my)\s+"
    r"(?:final\s+)?(?:answer|solution|result|value)|in\s+total|altogether|in\s+all|overall|"
    r"(?:at|in)\s+the\s+end)?\s*+[.!]?\s*+(?:\n|$)")
# what may stand right before it: a stating word, a connective, a colon, or nothing
_SPAN_LEAD_RE = re.compile(
    r"(?:(?:\b(?:is|are|was|were|equals?|be|gets?|got|obtain(?:s|ed)?|gives?(?:\s+us)?|yields?|"
    r"makes?|totals?|becomes?|find|have|has|had|contains?|therefore|thus|hence|so|namely|finally|"
    r"answer)\b\s*+,?|[=:]|"
    r"\\therefore|∴)\s*+(?:\\[\[(]|\$)?\s*+|^\s*+)$", re.IGNORECASE)


def _values_in(lead: str, spans, lo: int, hi: int) -> bool:
    """Numbers before the concluding span in its sentence, in prose or in other math spans
    (a lone variable like $z$ is no value)."""
    prose = lead
    for content, s_start, s_end in spans:
        if lo <= s_start and s_end <= hi:
            if re.search(r"\d", content):
                return True
            prose = prose.replace(content, " ")
    prose = re.sub(r"\b(?:base|step|part|case|problem|question)[-\s]*\d+", " ", prose, flags=re.IGNORECASE)
    return bool(_NUMBER_RE.search(prose) or _NUMBER_WORD_RE.search(prose))


def _states_a_value(text: str, sentence_start: int, spans) -> bool:
    """Does the sentence before ``sentence_start`` state a value ("The count is five.")?"""
    end = len(text[:sentence_start].rstrip().rstrip(".!?"))
    prev = text[_sentence_start(text, end, spans):sentence_start]
    return bool(_STATES_RE.search(prev) and (re.search(r"\d", prev) or _NUMBER_WORD_RE.search(prev)))


def _span_tail_ok(text: str, end: int) -> bool:
    """The span ends its sentence: "$3$ squared", "$3$ thousand", "$3$ seems wrong", "$3$,
    or possibly five" and "$3$ if order matters" say something else (a fourth review)."""
    from verifier.math.normalize import changes_value

    stop = _SENTENCE_END_RE.search(text, end)
    tail = text[end:stop.end() if stop else len(text)]
    # a remark after a comma ("$36$ committees, which matches our intuition.") is read for
    # hedges and values below, not as part of the value
    remark = re.search(r",\s*which\b[^\d$]*$", tail)
    if remark:
        tail = tail[:remark.start()] + "." + ("\n" if tail.endswith("\n") else "")
    # "square units", "cubic cm": one unit, not an operation on the value
    tail_unit = re.sub(r"\b(?:square|cubic|sq)\s+(?=[a-z])", "", tail)
    m = _SPAN_TAIL_RE.fullmatch(tail_unit + ("" if tail_unit.endswith("\n") else "\n"))
    if not m:
        return False
    words = re.findall(r"[A-Za-z]+", tail_unit + (remark.group(0) if remark else ""))
    return not any(changes_value(w) or _HEDGE_RE.fullmatch(w) or _OPERATION_RE.fullmatch(w)
                   or _NUMBER_WORD_RE.fullmatch(w) for w in words
                   if w.lower() not in ("which", "is", "as", "the", "our", "my", "final", "answer", "in",
                                        "total", "all", "altogether", "overall", "solution", "result",
                                        "value", "at", "end", "left"))


def _sentence_rest(text: str, end: int) -> str:
    """What follows the span after the end of its own sentence ("$x = 5$ pieces. I hope
    ..." -> " I hope ..."); the rest of its sentence is the span's context, not a statement."""
    m = _SENTENCE_END_RE.search(text, end)
    return text[m.end():] if m else ""


def _prose_value(sentence: str) -> str | None:
    """The value a prose sentence states after its last stating word, if it reads as one."""
    marks = list(_STATES_RE.finditer(sentence))
    if not marks:
        return None
    before = sentence[:marks[-1].start()]
    if len(marks) > 1:  # "the area is 4 * 4 = 16": a chain of arithmetic may lead to the value
        chain = sentence[marks[-2].end():marks[-1].start()]
        if re.fullmatch(r"[\d\s.,+\-*/×·÷()^]*", chain):
            before = sentence[:marks[-2].start()]
    if _NUMBER_RE.search(before) or _NUMBER_WORD_RE.search(before):
        return None  # "Without order the count is 5; with order it is 3": two statements
    value = sentence[marks[-1].end():].strip().lstrip("$").strip()
    value = _clean_phrase_answer(value)
    if not value or not re.search(r"\d", value) or not looks_like_bare_answer(value):
        return None
    return value


def conclusion(text: str) -> str | None:
    from verifier.math.extract import _CHECK_LINE_RE, _plain_check

    text = _CHECK_LINE_RE.sub(_plain_check, text)  # a check that only verifies is not the conclusion
    value = _value(text)
    return value if value is not None else _word_value(text)


def _word_value(text: str) -> str | None:
    """A word answer its last sentence states: "Therefore she faces south.", "That gives us
    *green* as the final answer.", "$\\therefore$ blue", "**Correct option:** E"."""
    body = _PLEASANTRY_RE.sub(" ", text).rstrip()
    spans = math_spans(body, positions=True)
    sentence = body[_sentence_start(body, len(body), spans):]
    marks = list(_STATES_RE.finditer(sentence))
    if (not marks or _hedged(sentence) or re.search(r"\bor\b", sentence, re.IGNORECASE)
            or any(not _CONNECTIVE_RE.fullmatch(c) for c, _, _ in math_spans(sentence, positions=True))):
        return None  # "So $n = E$ or $n = D$": math is the other path's; "or" lists two
    value = _clean_phrase_answer(sentence[marks[-1].end():].strip().lstrip("$").strip())
    value = re.sub(r"\\text(?:bf|rm|it)?\s*\{([^{}]*)\}", r"\1", value).strip("$*_ ")
    value = re.sub(r"^\(([A-Z])\)$", r"\1", value)  # an option: "(B)"
    if (not value or re.search(r"\d", value) or len(value.split()) > 3
            or not re.fullmatch(r"[A-Za-z][A-Za-z '\-]*", value)
            or re.match(r"(?:not|no|never|neither|none)\b", value, re.IGNORECASE)):
        return None
    return value


def _value(text: str) -> str | None:
    spans = [s for s in math_spans(text, positions=True)
             if s[0].strip() and not _CONNECTIVE_RE.fullmatch(s[0])]
    after_spans = spans[-1][2] if spans else 0
    numbers = list(_NUMBER_RE.finditer(text, after_spans))
    if numbers:  # the last value is in prose
        pos = numbers[-1].start()
        start = _sentence_start(text, pos, spans)
        end = _SENTENCE_END_RE.search(text, numbers[-1].end())
        stop = end.start() if end else len(text)
        if (_hedged(text[start:stop]) or _hedged_before(text, start) or not _inert(text[stop:])
                or _negated_before(text, pos)):
            return None
        return _prose_value(text[start:stop])
    if not spans:
        return None
    content, start, end = spans[-1]
    sentence_start = _sentence_start(text, start, spans)
    if (_negated_before(text, start) or _DISOWNED_AFTER_RE.match(text, end, end + 64)
            or _hedged(text[sentence_start:start]) or _hedged_before(text, sentence_start)
            or not _inert(_sentence_rest(text, end))
            or not _span_tail_ok(text, end)):
        return None
    group = [content]
    first = start
    for prev_content, _p_start, p_end in reversed([s for s in spans[:-1] if s[1] >= sentence_start]):
        between = text[p_end:first]
        if not _LIST_GLUE_RE.fullmatch(between) or not between.strip(" "):
            break
        group.insert(0, prev_content)
        first = _p_start
    lead = text[sentence_start:first]
    if not (_SPAN_LEAD_RE.search(lead[-80:]) or re.match(r"\s*(?:=|\\therefore|∴)", group[0])):
        return None  # "The count is $5$ vs $3$", "$5$, otherwise $3$": not what it states
    if _values_in(lead, spans, sentence_start, first):
        return None  # "the number of apples is $5$ and the number of pears is $3$": two statements
    if not lead.strip() and not re.match(r"\s*=", group[0]) and _states_a_value(text, sentence_start, spans):
        # "The count is $5$.\n\n$$3$$": a bare value after a stated one ("$$= 3$$" is the
        # result a computation arrives at, and may follow one)
        return None
    answers = [re.sub(r"^\s*(?:=|\\therefore|∴)\s*", "", a).strip() for a in group]
    answers = list(dict.fromkeys(a for a in answers if a))
    if not answers:
        return None
    return answers[0] if len(answers) == 1 else ", ".join(answers)
