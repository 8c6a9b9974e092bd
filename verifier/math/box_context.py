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

import itertools
import re

from verifier.math.extract import (STATING_MODAL_RE, FOREIGN_CONDITIONS, _both_cases, FOREIGN_NUMBER_RE, FOREIGN_REVISIONS, _HEDGE_RE, _INTERMEDIATE_RE, _NEGATED_NOTE_RE,
                                   _NUMBER_WORD_RE, _REVISION_RE, OTHER_LANGUAGE_PHRASES, _squeeze)

_NEAR = 240
# Values looked at one by one after the answer (each may cost a judge call): more than this
# in one sentence is a pile of values, not a restatement or a remark (a hostile review:
# "The answer is 5." + " $7" x 8,000 took 17.6 s, held the other requests and was paid).
_MAX_VALUES = 12
_FOREIGN_CONDITION_RE = re.compile(FOREIGN_CONDITIONS, re.IGNORECASE)
# words that announce the same value again: what follows them must be that value
_RESTATE_MARK_RE = re.compile(r"(?<![A-Za-z])(?:i\.?\s?e\.?|e\.?\s?g\.?|that\s+is|namely|equivalently|in\s+other\s+words)(?![A-Za-z])",
                              re.IGNORECASE)
_MAX_RESTATED_CHARS = 2000
# a revision after the box: these words, then another value
_BOX_REVISION_RE = re.compile(
    r"\b(?:wait|actually|oops|sorry|mistakes?|mistaken|wrong|incorrect|correction|scratch|"
    r"never\s*mind|I\s+meant|make\s+that|on\s+second\s+thought|recount\w*|recheck\w*|redo\w*|"
    r"hmm+|error|however|reflection|re-?read\w*|edit|p\.?\s?s|true\s+answer|real\s+(?:answer|total|count)|"
    r"correct\s+answer|should\s+be|fails?|fixing|instead|nah|nope|whoops|ugh|doh|err|eh|lol|j/?k|"
    r"kidding|retract\w*|oh\s+no|add\s+one|subtract\s+one|"
    r"(?:true|actual|correct|right|real)\s+(?:value|count|total|number|result|sum|figure)|"
    r"faux|fausse|falsch|fals[oa]|incorrect[oa]|err[oó]ne[oa]|sbagliat[oa]|errad[oa])\b"
    r"|不对|不對|错了|錯了|更正|应该是|應該是|实际上|實際上|其实|其實|間違|違う|正しくは|" + FOREIGN_REVISIONS,
    re.IGNORECASE)
# a later answer written another way: a phrase, "####", or another box-like macro
_LATER_ANSWER_RE = re.compile(
    r"(?:final\s+answer|the\s+answer\s+is|answer\s*:|answer\s+is|" + OTHER_LANGUAGE_PHRASES + r")\s*[:：]?\s*\S|####\s*\S"
    r"|\\(?:framebox|bbox|colorbox|fcolorbox)\b", re.IGNORECASE)
# words of the hedge list too weak to void a box: "So the answer should be \boxed{5}", "I think
# the answer is \boxed{5}", "If we substitute, we get \boxed{5}" (a box is a commitment)
_WEAK = {"if", "should", "say", "claim", "think", "believe", "earlier", "tried", "may", "seems",
         "seem", "appears", "appear", "likely", "estimate", "estimated", "vs", "versus", "instead",
         "roughly", "assuming", "assume", "suppose", "supposing",
         # right before the box these mark it approximate instead (extract._APPROX_BEFORE_RE)
         "approximately", "approx", "about", "around", "nearly", "almost", "circa"}
_CONDITION_RE = re.compile(r"\b(?:if|when|whenever|unless|case|otherwise|else|either)\b|" + FOREIGN_CONDITIONS, re.IGNORECASE)
_SENTENCE_END_RE = re.compile(r"[.!?](?=\s)|\n\s*\n")
_REJECTED_AFTER_RE = re.compile(
    r"\s*+(?:\?|？|[✗✘❌👎🤔🤷]|:\(|¯|(?:is|was|seems|looks|appears)\s+(?:also\s+)?(?:not|incorrect|wrong|false|"
    r"off|impossible|invalid|rejected|doubtful)"
    r"|up\s+to\s+(?:(?:the\s+)?order|sign|a\s+(?:constant|sign|factor|permutation)|permutation|scaling|rounding)"
    r"|in\s+(?:some|any|either|an?\s+unknown)\s+order|give\s+or\s+take)", re.IGNORECASE)
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
    from verifier.math.extract import extract_answer

    if later.lstrip().startswith("\\"):
        return False  # another box-like macro: a second box
    again = extract_answer(later)
    return again is not None and _same_value(answer, again)


def box_disowned(text: str, start: int, end: int, answer: str, boxes: int) -> bool:
    """True when the words around the final box group text[start:end] say it is not the
    answer (see the module doc). ``answer``: the group's content; ``boxes``: how many
    distinct values the response boxes in all."""
    before = _sentence_before(text, start)
    if any(m.group(0).lower() not in _WEAK and not STATING_MODAL_RE.match(before, m.start())
           for m in _HEDGE_RE.finditer(before)):
        return True  # "Not sure: \boxed{3}", "The count doesn't equal \boxed{3}"
    if boxes > 1 and _CONDITION_RE.search(before):
        return True  # "If $n$ is even: \boxed{5}. If $n$ is odd: \boxed{3}."
    after = re.sub(r"^(?:\s|\$|\*|~|\\[)\]])*", "", _sentence_after(text, end))  # past "$", "**"
    if _REJECTED_AFTER_RE.match(after) or any(m.group(0).lower() not in _WEAK for m in _HEDGE_RE.finditer(after)):
        return True  # "\boxed{3}?", "\boxed{3} is incorrect", "\boxed{3} is what a naive count gives"
    if _tail_offers_more(answer, after):
        return True  # "\\boxed{5} (and 7)", "\\boxed{5} -> 7", "\\boxed{5} (assuming $n$ is even)"
    note = re.match(r"\(([^()]*)\)", after)
    if note and (_NEGATED_NOTE_RE.search(note.group(1)) or _REVISION_RE.search(note.group(1))
                 or re.search(r"[≠<>≈~]|\\(?:neq?|approx)", note.group(1))
                 or re.search(r"\bbase\b", note.group(1))):
        return True  # "\boxed{3} (in thousands)", "(probably)"
    if re.match(r"[^.!?\n]*?\b(?:short|extra|too\s+(?:many|few|much|little))\b", after, re.IGNORECASE):
        return True  # "\boxed{3} gallons short of the 7 needed"
    rest = text[end:end + 4 * _NEAR]
    letter = re.fullmatch(r"\s*\(?([A-E])\)?\s*", answer)
    if letter and any(m.group(0).strip("()") != letter.group(1)
                      for m in _OPTION_RE.finditer(rest.split("\n\n", 1)[0])):
        return True  # "\boxed{C} and D", "\boxed{C} (D is also correct)"
    rest = text[end:]  # the whole remainder: a long filler must not hide what comes after it
    later = _LATER_ANSWER_RE.search(rest)
    if later and (_VALUE_RE.search(rest, later.start()) or _NUMBER_WORD_RE.search(rest, later.start())):
        if not _restates(answer, rest[later.start():]):
            return True  # "\boxed{3}\n\nThe answer is 4.", "#### 4", "\framebox{4}"
    revision = _BOX_REVISION_RE.search(rest)
    if revision:
        later = rest[revision.end():]
        if (_VALUE_RE.search(later) or _NUMBER_WORD_RE.search(later) or FOREIGN_NUMBER_RE.search(later)
                or _other_word(answer, later)
                or _later_states_other(answer, later)):
            return True  # "\boxed{3}. Wait, that's wrong; ... the answer is 5." (or "... it is No.")
    return _later_states_other(answer, rest) or stray_value(answer, _past_own_span(text, start, rest))


def _past_own_span(text: str, start: int, rest: str) -> str:
    """``rest`` (what follows the box) without the close of the math span the box stands
    in: "$\\boxed{(3,2)}$, i.e., $(3,2)$." must not pair that "$" with the next one."""
    before = text[:start]
    inside = (len(re.findall(r"(?<!\\)\$\$?", before)) % 2 == 1
              or before.rfind("\\(") > before.rfind("\\)") or before.rfind("\\[") > before.rfind("\\]"))
    return re.sub(r"^[\s*~]*+(?:\$\$?|\\[)\]])", " ", rest, count=1) if inside else rest


# a later sentence that doubts the answer ("I'm not confident in this.", "This is just a guess.")
_DOUBT_RE = re.compile(
    r"\b(?:not\s+(?:confident|sure|certain)|unsure|uncertain|low\s+confidence|(?:just|only|a)\s+(?:a\s+)?guess|"
    r"I\s+guess(?:ed)?|could\s*(?:not|n't)\s+verify|(?:may|might|could)\s+(?:well\s+)?be\s+(?:wrong|off|incorrect)|"
    r"probably\s+wrong|no\s+idea|not\s+really|the\s+(?:reverse|opposite)\s+(?:holds|is\s+(?:true|the\s+case))"
    r"|(?:reverse|opposite)\s+(?:is\s+)?(?:true|correct))\b"
    # the same doubts in other languages
    r"|pas\s+s[ûu]re?|nicht\s+sicher|no\s+estoy\s+segur[oa]|n[ãa]o\s+tenho\s+certeza|non\s+sono\s+sicur[oa]|"
    r"不确定|不確定|没把握|自信がない|わからない"
    # the box disowned or held loosely (a sixth review): "Obviously wrong.", "Just kidding.",
    # "(This is false.)", "Probably not.", ", give or take", "(among others)", "Das ist falsch."
    r"|\b(?:(?:obviously|clearly|definitely|totally)\s+(?:wrong|false|incorrect)|just\s+kidding|"
    r"(?:this|that|it)\s+is\s+(?:false|wrong|incorrect)\b|probably\s+not|give\s+or\s+take|among\s+others|"
    r"das\s+ist\s+falsch|c'est\s+faux|es\s+falso|è\s+sbagliato|misschien|emin\s+değilim|belki)\b"
    r"|это\s+неверно|это\s+неправильно|‽"
    r"|\(\s*(?:erroneous|withdrawn|retracted|joke|fake|sarcasm|I\s+think|not\s+really|kidding|obsolete|"
    r"deprecated|dubious|disputed|questionable|debatable|speculative|hypothetical|unconfirmed|draft|"
    r"provisional|needs\s+checking|unverified|lies|nonsense|garbage|rubbish|satire|troll|void|n/a|null)\s*\)"
    r"|(?<![A-Za-z])(?:jk|/s)(?![A-Za-z])|\bwrong\s+answer\b"
    r"|\b(?:fout|yanlış|väärin|błędn\w*|niepoprawn\w*|fel|forkert|feil|λάθος|λανθασμέν\w*)\b"
    r"|错误|錯誤|不正确|間違い|まちがい|틀렸|틀린|오답|خطأ|خاطئ|שגוי"
    # a question mark of its own: "\\boxed{5} (?)", "\\boxed{5}?"
    r"|\(\s*\?+\s*\)|^\s*\?+\s*$", re.IGNORECASE)
# a later note that scales or transforms the value ("(in hundreds)", "Multiply by 2 for the
# final count.", "That's the radius; the diameter is twice that.")
_SCALE_NOTE_RE = re.compile(
    r"\b(?:in\s+(?:hundreds|thousands|millions|billions|units\s+of)|figures\s+in|thousands?\b|"
    r"hundreds\b|millions?\b|multiply\b|divide\b|\bdoubl(?:e|ed|ing)\b(?![-\s]?check)|twice\s+that|half\s+(?:the|of)|"
    r"square\s+it|cube\s+it|the\s+question\s+asks\s+for|requested\s+quantity|units?\s*:)", re.IGNORECASE)
# what makes a later sentence a computation rather than a second value ("$138 + 62 = 200$ ✓")
_RELATION_RE = re.compile(r"[=+×÷*/<>≤≥^]|\\(?:cdot|times|div|le|ge|leq|geq|approx|frac|sqrt)|\d\s*-\s*\d")
# ASCII word characters only around it: "应该是7" holds the value 7 (a hostile review)
_VALUE_TOKEN_RE = re.compile(r"(?<![A-Za-z0-9_.\\^])-?\d+(?:[.,]\d+)*(?![A-Za-z0-9_])")


# styling around a value ("**Final:** $\\mathbf{7}$", "$\\underline{7}$", "$\\textcolor{red}{7}$"): the
# value is what a reader sees (a seventh review's styled lines after a box were not read)
_STYLE_WRAP_RE = re.compile(r"\\(?:mathbf|mathit|mathrm|boldsymbol|bm|underline|overline|emph|fbox|ovalbox|"
                            r"shadowbox|doublebox|tcbox|framebox|colorbox\s*\{[^{}]*\}|textcolor\s*\{[^{}]*\}|"
                            r"color\s*\{[^{}]*\}|enclose\s*\{[^{}]*\})\s*\{([^{}]*)\}")
_STYLE_SWITCH_RE = re.compile(r"\\(?:bf|it|rm|large|Large|LARGE|huge|Huge|small|normalsize|displaystyle)(?![A-Za-z])")


def _unstyled(text: str) -> str:
    if "\\" not in text:
        return text
    return _STYLE_SWITCH_RE.sub(" ", _STYLE_WRAP_RE.sub(r"\1", text))


def _without_intermediate(rest: str) -> str:
    """``rest`` without its sentences about an intermediate value ("Note that the key
    intermediate quantity was $315$.": out-of-sample check 8), which offer no answer."""
    if "ntermediate" not in rest:
        return rest
    return "\n".join(p for p in re.split(r"(?<=[.!?])\s+|\n+", rest) if not _INTERMEDIATE_RE.search(p))


def stray_value(answer: str, rest: str) -> bool:
    """A sentence after the answer that offers another value without computing anything ("Or
    7.", "(7)", "7 is correct.", "Seven.", "In fact, 7.", "The textbook says 7.", "7 ✓"; check 7
    of out-of-sample checks: 128 paid), a doubt ("This may be wrong.") or a note that scales the
    value ("(in hundreds)"): the response has not committed to one answer. Short sentences
    only: a longer one with a number is a remark ("Each of the 3 groups has 4 members.")."""
    from verifier.math.extract import _CHECK_LINE_RE, _NUMBER_WORD_RE, _plain_check

    checks = list(_CHECK_LINE_RE.finditer(rest))
    if any(_plain_check(m) == m.group(0) and re.search(r"[✗✘❌]|\b(?:fails?|failed|wrong|incorrect|but)\b|"
                                                      r"\b(?:does|do|is)\s+not\b|n't\b|\bbetter\b|\balternative\b|\btoo\s+(?:small|large|big|few|many|much|little)\b",
                                                      m.group(0), re.IGNORECASE) for m in checks):
        return True  # "Check: 5 ✗; 7 ✓", "Check: plugging in 5 fails.": the check disowns it
    rest = _CHECK_LINE_RE.sub(_plain_check, rest)
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", _without_intermediate(rest)):
        sentence = _without_restatements(answer, sentence)
        plain = re.sub(r"\\text\w*\s*\{([^{}]*)\}|\\boxed\s*\{([^{}]*)\}", r" \1\2 ", _unstyled(sentence)).replace("**", " ")
        if not plain.strip():
            continue
        if len(re.findall(r"[A-Za-z]+", plain)) <= 6 and _word_offered(answer, plain):
            return True  # "Though honestly, no.", "C is better.", "Final: C" (a word answer)
        if _DOUBT_RE.search(plain) or _SCALE_NOTE_RE.search(plain) or re.search(r"[✗✘❌]", plain):
            return True  # "7 ✓ (5 ✗)": a cross disowns what it marks
        case = _CASE_VALUE_RE.match(plain)
        if case and not _same_value(answer, case.group(1)):
            return True  # "When $k=2$: 7.": the answer for another case
        if _RELATION_RE.search(plain) or _restated(answer, plain):
            continue
        tokens = list(itertools.islice(itertools.chain(_VALUE_TOKEN_RE.finditer(plain), _NUMBER_WORD_RE.finditer(plain)),
                                       _MAX_VALUES + 1))
        if len(tokens) > _MAX_VALUES and len(re.findall(r"[A-Za-z]+", plain)) <= 2 * _MAX_VALUES:
            return True  # a pile of values after the answer (" $7 $7 $7 ...": a hostile review)
        values = [m.group(0) for m in tokens if _claimed(plain, m.start())]
        words = re.findall(r"[A-Za-z]+", plain)
        if values and len(words) <= 6 and any(not _same_value(answer, v) for v in values):
            return True
    return False


# a sentence that gives the value for a case: "When $k=2$: 7.", "If n is odd: 4."
_CASE_VALUE_RE = re.compile(r"\s*+(?:when|if|for|in\s+case)\b[^.:]{0,80}:\s*\$?\s*(-?\d[\d.,/]*|[A-Za-z]\b)", re.IGNORECASE)
# words that put a value forward as the answer ("says 7", "Or 7", "it's 7"); a value after any
# other word names something else ("degree 3", "base 5", "step 2")
_CLAIM_LEAD = {"is", "are", "was", "be", "it's", "its", "that's", "say", "says", "said", "read", "reads",
               "or", "and", "also", "alternatively", "then", "again", "precisely", "final", "answer",
               "maybe", "perhaps", "honestly", "but", "no", "nein", "rather", "mean", "instead", "so",
               "although", "though", "as", "really", "fact", "actually", "get", "gets", "got", "claim",
               "claims", "pick", "choose", "with", "make", "vs", "versus", "equals", "gives", "yes",
               "report", "reports", "reported", "suggest", "suggests", "prefer", "try",
               # concluding words ("\\boxed{5}. Hence 7.": a seventh review)
               "hence", "thus", "therefore", "finally", "namely", "ergo", "consequently",
               # ... and more of them ("\\boxed{5}. Accordingly 7.": the same review's replay)
               "accordingly", "ultimately", "overall", "equivalently", "tl;dr", "tldr", "summary",
               "conclusion", "altogether", "briefly", "result"}


def _word_offered(answer: str, sentence: str) -> bool:
    """Another word of a word answer's kind put forward in a short sentence: followed by
    punctuation or its end ("no.", "Opposite,"), or an option letter so placed or named
    ("C is better.", "Option C, though.")."""
    box = _plain(answer)
    if re.fullmatch(r"[a-e]", box):
        for m in re.finditer(r"(?<![A-Za-z\\])\(?([A-E])\)?(?=\s*(?:[.,!;:)]|$|is\b|though\b|instead\b))"
                             r"|\b(?:option|choice|pick|final:?)\s*\(?([A-E])\b", sentence, re.IGNORECASE):
            letter = (m.group(1) or m.group(2)).lower()
            if letter != box and (m.group(2) or m.group(1).isupper()):
                return True
        return False
    if box in _SAME_WORD["yes"] and _REVERSAL_RE.fullmatch(sentence.strip()):
        return True  # "\\boxed{Yes}. Never.", "Absolutely not.", "Not true.", "其实不是。", "Нет."
    for words in _WORD_CLASSES:
        if box in words:
            same = _SAME_WORD.get(box, {box})
            return any(w.lower() in words and w.lower() not in same
                       for w in re.findall(r"\b([A-Za-z]+)(?=\s*(?:[.,!;)—]|$)|\s+(?:is|was)\s+"
                                           r"(?:right|correct|the\s+answer)\b|\s+instead\b)", sentence))
    return False


# a sentence that only says no (after a yes/no or true/false box): a seventh review's
# "\\boxed{Yes}. Never." and "no" in twenty languages; a lead-in word may come first
_REVERSAL_RE = re.compile(
    r"\W*+(?:(?:absolutely|definitely|certainly|actually|in\s+fact|wait|hmm+|well|oh|sorry|so|then|"
    r"en\s+fait|eigentlich|en\s+realidad|de\s+hecho|na\s+verdade|in\s+realt[àa]|на\s+самом\s+деле|"
    r"<CYR_LEAD>|其实|其實|实际上|實際上|実は|사실|aslında|właściwie|faktiskt|eigenlijk)[\s,!:]*+)*+"
    r"(?:no+|nope|nah|never|not(?:\s+(?:true|so|really|at\s+all))?|of\s+course\s+not|negative|untrue|nicht|tidak|"
    r"bukan|onwaar|faux|falsch|falso|假的?|<CYR_FALSE>|"
    r"false|wrong|incorrect|non|nein|n[ãa]o|nie|nej|nee|"
    r"hay[ıi]r|ei|ne|όχι|<CYR_NO>|不是|不|否|不对|不對|错|錯|没有|沒有|いいえ|違う|ちがう|아니요|아니|"
    r"لا|לא|नहीं|ไม่|không)\W*+"
    # Cyrillic as plain_letters leaves it (look-alike letters Latin: "Нет" reads "Heт")
    .replace("<CYR_LEAD>", "".join(_both_cases(c) for c in "на самом деле|наоборот").replace(" ", r"\s+"))
    .replace("<CYR_NO>", "".join(_both_cases(c) for c in "нет|не так|неверно").replace(" ", r"\s+"))
    .replace("<CYR_FALSE>", "".join(_both_cases(c) for c in "ложь")),
    re.IGNORECASE)


def _restated(answer: str, sentence: str) -> bool:
    """The sentence writes the whole answer again in math and names no other value ("In
    summary, the solutions is $-2, 1$."; not "It is $3$, not 4.")."""
    spans = list(itertools.islice(re.finditer(r"\$([^$]+)\$", sentence), _MAX_VALUES + 1))
    if len(spans) > _MAX_VALUES:
        return False  # a pile of values is no restatement (and each costs a judge call)
    same = [m for m in spans if _same_value(answer, m.group(1))]
    if not same:
        return False
    others = sentence
    for m in reversed(same):
        others = others[:m.start()] + " " + others[m.end():]
    from verifier.math.extract import _NUMBER_WORD_RE

    return not (re.search(r"\d", others) or _NUMBER_WORD_RE.search(others))


def _claimed(sentence: str, at: int) -> bool:
    prev = re.search(r"(\S+)\s*$", sentence[max(0, at - 200):at])  # a window: linear over the tokens
    if prev is None:
        return True  # the sentence starts with it: "7 is correct.", "Seven."
    token = prev.group(1).lower().strip("*_$")
    return (not token or token[-1] in ",:;—–-(|&→⇒>[" or not token.isascii()
            or token.rstrip(".,:;!") in _CLAIM_LEAD or token.endswith("."))


def _without_restatements(answer: str, text: str) -> str:
    r"""``text`` without its math spans that hold the answer's value again (", i.e.,
    $\dfrac{15\pi}{8}$", ", i.e., ${9 \over 4}$": out-of-sample check 8 refused them)."""
    from verifier.math.extract import math_spans

    if ("$" not in text and "\\(" not in text) or len(text) > _MAX_RESTATED_CHARS:
        return text  # a long text is not looked through span by span (a judge call each)
    spans = math_spans(text, positions=True)
    if len(spans) > _MAX_VALUES:
        return text
    for content, start, stop in reversed(spans):
        if _same_value(answer, content):
            text = text[:start] + " " + text[stop:]
    return text


def _restates_another(answer: str, text: str) -> bool:
    """What follows "i.e." holds a value that is decidably not the answer (a math span or a
    number: ", i.e., $\\frac{1}{3}$", ", i.e., $x = 7$"); a form the quick judge cannot read
    ("$x = 8, x = 9$" for {8, 9}) is given the benefit of the doubt."""
    from verifier.math.extract import math_spans

    spans = math_spans(text, positions=True)[:_MAX_VALUES]
    outside = text
    for _content, start, stop in reversed(spans):
        outside = outside[:start] + " " + outside[stop:]
    values = [c for c, _, _ in spans] + [m.group(0) for m in itertools.islice(_VALUE_TOKEN_RE.finditer(outside), _MAX_VALUES)]
    for value in values:
        if "=" in value and "=" not in answer:  # "x = 7"; "x = 8, x = 9" is the list 8, 9
            value = re.sub(r"(?<![\\\w])[A-Za-z]\w*\s*=\s*", "", value)
        v = _quick_verdict(answer, value)
        if v is not None and not v.equivalent and v.error is None and v.prediction_parsed is not None \
                and v.gold_parsed is not None:
            return True
    return False


def _quick_verdict(a: str, b: str):
    """The judge's verdict on ``b`` for ``a`` without a sympy worker, or None when it
    cannot decide that way (or cannot read them)."""
    from verifier.math.judge import NeedsWorker, judge

    try:
        return judge(a, b, extract=False, fast_only=True)
    except (NeedsWorker, TypeError, ValueError):
        return None


def _tail_offers_more(answer: str, tail: str) -> bool:
    """The rest of the box's own sentence names another value outside any computation, or a
    condition or footnote (check 7: "\\boxed{5} & 7", "; 7", "vs 7", "-> 7", "\\footnote{or 7}")."""
    if _FOREIGN_CONDITION_RE.search(tail) or re.search(r"\\footnote|\bassum\w*|\bprovided\b|\bunless\b|\b(?:if|when(?:ever)?)\b(?!\s+(?:we|I|you|one)\b)|\bonly\s+for\b|\bas\s+long\s+as\b|\bin\s+the\s+case\b|"
                 r"\bfor\s+(?:even|odd|positive|negative|nonzero|large|small)\b|"
                 r"\b(?:in|written\s+in)\s+(?:base\s*\d+|"
                 r"decimal|octal|binary|hex\w*)\b|\((?:decimal|octal|binary|hex\w*)\)", tail, re.IGNORECASE):
        return True  # a condition, a footnote, or another base than the one asked: "in octal"
    tail = _without_restatements(answer, tail)
    mark = _RESTATE_MARK_RE.search(tail)
    if mark and _restates_another(answer, tail[mark.end():]):
        return True  # ", i.e., $\frac{1}{3}$" after \boxed{2}: a restatement with another value
    arrows = re.sub(r"→|⇒|->|=>|\\(?:to|Rightarrow|implies|rightarrow)\b", " or ", tail)
    if _RELATION_RE.search(arrows):
        return False  # "(since 1+2=3)": a computation
    return any(not _same_value(answer, m.group(0))
               for m in itertools.islice(_VALUE_TOKEN_RE.finditer(arrows), _MAX_VALUES + 1))


def correction_after(text: str, end: int) -> str | None:
    """The text after a revision that follows the final box at ``end`` ("\\boxed{5}. Wait,
    that's wrong ... **Answer:** 7"), or None: a box a response corrected is a draft, and the
    answer it states after the correction is its answer (check 7: 84 right answers refused)."""
    rest = text[end:]
    revision = _BOX_REVISION_RE.search(rest)
    return rest[revision.end():] if revision else None


def _later_states_other(answer: str, rest: str) -> bool:
    """Does what follows the box conclude with another value, by the extraction rules that
    would read it if it stood alone (an answer phrase, "####", a concluding statement, a word
    answer)? "\\boxed{5}, but it is 6.", "The correct value is 6.", "\\boxed{Yes}\n\nWait, it is
    No.": the response names two answers and the box is not its last word (out-of-sample
    check 6). The same value again ("That is, 5.") is a restatement."""
    from verifier.math.extract import _CHECK_LINE_RE, _plain_check

    rest = re.sub(r"^(?:\s|\$|\*|~|\\[)\]])*", "", rest)  # the close of the box's own span
    rest = _CHECK_LINE_RE.sub(_plain_check, rest)  # a check verifies; its values are no answer
    if not re.search(r"\w", rest):
        return False
    again = _stated(_without_intermediate(rest))
    return again is not None and not _same_value(answer, again)


def _stated(rest: str) -> str | None:
    """The value ``rest`` states: its "####" or answer phrase, else its concluding statement
    (``conclusion._value``: a stating word, then the value ending the sentence). Not the
    bare-answer reading: "apples." after "\\boxed{7}" is the box's unit, not a word answer."""
    from verifier.math.conclusion import _value
    from verifier.math.extract import _GSM_RE, _PHRASE_RE, _clean_phrase_answer, looks_like_bare_answer

    gsm = list(_GSM_RE.finditer(rest))
    if gsm:
        return _clean_phrase_answer(gsm[-1].group(1)) or None
    phrases = list(_PHRASE_RE.finditer(rest))
    if phrases:
        ans = _clean_phrase_answer(rest[phrases[-1].end():])
        if ans and not looks_like_bare_answer(ans):
            m = re.search(r"\b(?:is|are|equals|be)\s+(?!not\b)(\S.*)$", ans)  # "Final answer: it is 7."
            ans = _clean_phrase_answer(m.group(1)) if m and looks_like_bare_answer(m.group(1)) else None
        if ans:
            return ans
    return _value(rest)


# Word answers a revision after a boxed word may switch between ("\\boxed{Yes} ... Hmm, actually
# no."): a different word of the box's own class after a revision word voids the box.
_WORD_CLASSES = [frozenset(c.split()) for c in (
    "yes no true false nah nope yeah yep opposite reverse oui non nein ja vrai faux wahr falsch verdadero falso vero",
    "even odd", "positive negative zero", "always sometimes never",
    "possible impossible", "finite infinite", "increasing decreasing constant",
    "north south east west", "left right up down", "convergent divergent", "converges diverges",
    "monday tuesday wednesday thursday friday saturday sunday",
    "january february march april may june july august september october november december")]
_OPTION_LETTER_RE = re.compile(r"(?<![A-Za-z\\])\(?([A-E])\)?(?![A-Za-z])")


def _other_word(answer: str, later: str) -> bool:
    box = _plain(answer)
    if re.fullmatch(r"[a-e]", box):
        return any(m.group(1).lower() != box for m in _OPTION_LETTER_RE.finditer(later))
    for words in _WORD_CLASSES:
        if box in words:
            said = {w.lower() for w in re.findall(r"[A-Za-z]+", later)}
            return bool((said & words) - _SAME_WORD.get(box, {box}))
    return False


# words of the yes/no class that mean the same thing (a restatement, not a revision)
_SAME_WORD = {w: frozenset(g.split()) for g in ("yes true yeah yep oui ja vrai wahr verdadero vero",
                                                 "no false nah nope non nein faux falsch falso")
              for w in g.split()}


def _plain(value: str) -> str:
    value = re.sub(r"\\(?:text|textbf|textit|textrm|mathrm|mathbf|mbox|operatorname)\s*\{([^{}]*)\}", r"\1", value)
    value = re.sub(r"^\s*(?:option|choice)\s+", "", value, flags=re.IGNORECASE)
    value = _squeeze(value).strip("*_.,:;").lower()
    return re.sub(r"^\(([a-e])\)$", r"\1", value)


def _loose(value: str) -> str:
    """Spelling that never changes a value: sizing (\\left, \\right), spaces, "+\\infty"."""
    value = re.sub(r"\\(?:left|right|big|Big|bigg|Bigg)(?![A-Za-z])|\\[,;:! ]|\s+", "", value)
    return value.replace("+\\infty", "\\infty").replace("bmatrix", "pmatrix")


def _same_value(a: str, b: str) -> bool:
    """``b`` names the box's value ``a`` again: written the same way, the same number, or a
    computation that ends in it ("verify: $2+3=5$")."""
    from verifier.math.extract import _same_number

    b = b.rsplit("=", 1)[-1] if "=" in b and "=" not in a else b
    if _plain(a) == _plain(b) or _same_number(a, b) or _loose(a) == _loose(b):
        return True
    # "\\dfrac{5}{36}" then "$\\frac{5}{36}$", "7i - 22" then "-22 + 7i" (check 7); not
    # decided without sympy: another value, as before
    v = _quick_verdict(a, b)
    return v is not None and v.equivalent
