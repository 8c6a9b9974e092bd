"""What the words around the final box say about it (extraction step 1).

``_attached`` (extract.py) decides whether notation makes the box an operand. This module
reads the box's sentence and what follows it, the way the concluding-statement rule reads a
math span (``verifier.math.conclusion``), for the cases a fourth hostile review found paid:

- the sentence before the box negates or hedges it: "The count doesn't equal \\boxed{3}",
  "Not sure: \\boxed{3}" (a bound or exception right before it, "exceeds \\boxed{3}", "up to
  \\boxed{3}", is ``_attached``'s); a condition ("If $n$ is odd: \\boxed{3}") when the response boxes
  another value too;
- right after it, in its sentence: a question mark, a cross (✗), "is incorrect", "seems
  wrong", or a note that hedges or changes the value ("(in thousands)", "(probably)");
- an option letter with another option named after it ("\\boxed{C} and D", "(D is also
  correct)");
- later, a revision word with another value ("Wait, that's wrong; ... the answer is 5").

Every check looks at a bounded neighbourhood of the box (linear in the response).
"""

from __future__ import annotations

import re

from verifier.math.extract import _HEDGE_RE, _NEGATED_NOTE_RE, _NUMBER_WORD_RE, _REVISION_RE

_NEAR = 240
# a revision after the box: these words, then another value
_BOX_REVISION_RE = re.compile(
    r"\b(?:wait|actually|oops|sorry|mistakes?|mistaken|wrong|incorrect|correction|scratch|"
    r"never\s*mind|I\s+meant|make\s+that|on\s+second\s+thought|recount\w*|recheck\w*|redo\w*|"
    r"hmm+|error|however|reflection|re-?read\w*|edit|p\.?\s?s|true\s+answer|real\s+(?:answer|total|count)|"
    r"correct\s+answer|should\s+be|fails?|fixing|instead|nah|nope|whoops|ugh|doh|err|eh|lol|j/?k|"
    r"kidding|retract\w*|oh\s+no|add\s+one|subtract\s+one)\b", re.IGNORECASE)
# a later answer written another way: a phrase, "####", or another box-like macro
_LATER_ANSWER_RE = re.compile(
    r"(?:final\s+answer|the\s+answer\s+is|answer\s*:|answer\s+is)\s*:?\s*\S|####\s*\S"
    r"|\\(?:framebox|bbox|colorbox|fcolorbox)\b", re.IGNORECASE)
# words of the hedge list too weak to void a box: "So the answer should be \boxed{5}", "I think
# the answer is \boxed{5}", "If we substitute, we get \boxed{5}" (a box is a commitment)
_WEAK = {"if", "should", "say", "claim", "think", "believe", "earlier", "tried", "may", "seems",
         "seem", "appears", "appear", "likely", "estimate", "estimated", "vs", "versus", "instead",
         "roughly", "assuming", "assume", "suppose", "supposing"}
_CONDITION_RE = re.compile(r"\b(?:if|when|whenever|unless|case|otherwise|else|either)\b", re.IGNORECASE)
_SENTENCE_END_RE = re.compile(r"[.!?](?=\s)|\n\s*\n")
_REJECTED_AFTER_RE = re.compile(
    r"\s*+(?:\?|[✗✘❌👎🤔]|(?:is|was|seems|looks|appears)\s+(?:also\s+)?(?:not|incorrect|wrong|false|"
    r"off|impossible|invalid|rejected|doubtful))", re.IGNORECASE)
_OPTION_RE = re.compile(r"(?<![A-Za-z\\])\(?[A-E]\)?(?![A-Za-z])")
_VALUE_RE = re.compile(r"\d|\\boxed")


def _sentence_before(text: str, start: int) -> str:
    lo = max(0, start - _NEAR)
    near = text[lo:start]
    ends = list(_SENTENCE_END_RE.finditer(near))
    return near[ends[-1].end():] if ends else near


def _sentence_after(text: str, end: int) -> str:
    near = text[end:end + _NEAR]
    m = _SENTENCE_END_RE.search(near)
    return near[:m.start() + 1] if m else near


def _restates(answer: str, later: str) -> bool:
    """Does the later answer (a phrase or "####" after the box) name the box's value again?"""
    from verifier.math.extract import _same_number, _squeeze, extract_answer

    if later.lstrip().startswith("\\"):
        return False  # another box-like macro: a second box
    again = extract_answer(later)
    return again is not None and (_squeeze(again) == _squeeze(answer) or _same_number(again, answer))


def box_disowned(text: str, start: int, end: int, answer: str, boxes: int) -> bool:
    """True when the words around the final box group text[start:end] say it is not the
    answer (see the module doc). ``answer``: the group's content; ``boxes``: how many
    distinct values the response boxes in all."""
    before = _sentence_before(text, start)
    if any(m.group(0).lower() not in _WEAK for m in _HEDGE_RE.finditer(before)):
        return True  # "Not sure: \boxed{3}", "The count doesn't equal \boxed{3}"
    if boxes > 1 and _CONDITION_RE.search(before):
        return True  # "If $n$ is even: \boxed{5}. If $n$ is odd: \boxed{3}."
    after = re.sub(r"^(?:\s|\$|\*|~|\\[)\]])*", "", _sentence_after(text, end))  # past "$", "**"
    if _REJECTED_AFTER_RE.match(after) or any(m.group(0).lower() not in _WEAK for m in _HEDGE_RE.finditer(after)):
        return True  # "\boxed{3}?", "\boxed{3} is incorrect", "\boxed{3} is what a naive count gives"
    note = re.match(r"\(([^()]*)\)", after)
    if note and (_NEGATED_NOTE_RE.search(note.group(1)) or _REVISION_RE.search(note.group(1))
                 or re.search(r"[≠<>≈~]|\\(?:neq?|approx)", note.group(1))
                 or re.search(r"\bbase\b", note.group(1))):
        return True  # "\boxed{3} (in thousands)", "(probably)"
    if re.match(r"[^.!?\n]*?\b(?:short|extra|too\s+(?:many|few|much|little))\b", after, re.IGNORECASE):
        return True  # "\boxed{3} gallons short of the 7 needed"
    rest = text[end:end + 4 * _NEAR]
    if re.fullmatch(r"\s*\(?[A-E]\)?\s*", answer) and _OPTION_RE.search(rest.split("\n\n", 1)[0]):
        return True  # "\boxed{C} and D", "\boxed{C} (D is also correct)"
    rest = text[end:]  # the whole remainder: a long filler must not hide what comes after it
    later = _LATER_ANSWER_RE.search(rest)
    if later and (_VALUE_RE.search(rest, later.start()) or _NUMBER_WORD_RE.search(rest, later.start())):
        if not _restates(answer, rest[later.start():]):
            return True  # "\boxed{3}\n\nThe answer is 4.", "#### 4", "\framebox{4}"
    revision = _BOX_REVISION_RE.search(rest)
    if revision:
        later = rest[revision.end():]
        if _VALUE_RE.search(later) or _NUMBER_WORD_RE.search(later):
            return True  # "\boxed{3}. Wait, that's wrong; ... the answer is 5."
    return False
