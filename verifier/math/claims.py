"""Answers said in words that have a fixed meaning: calendar dates and "no solution".

Both are decided before any parsing (``judge._special_forms``), and only when the gold is
one of them: against a gold date, `august 25`, `Aug. 25` and `25 August` are the gold
`August 25` (as prose they were unparsable, and `may 2` read as the product M*a*y*2);
against a gold empty set, "no solution" says the same (and the other way round).
"""

from __future__ import annotations

import re

_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december"]
_MONTH_RE = (r"(?P<m>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|"
             r"aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_DAY_RE = r"(?P<d>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR_RE = r"(?:,?\s*(?P<y>\d{4}))?"
_DATE_RES = [re.compile(_MONTH_RE + r"\s+" + _DAY_RE + _YEAR_RE, re.I),
             re.compile(_DAY_RE + r"\s+(?:of\s+)?" + _MONTH_RE + _YEAR_RE, re.I)]


# an ISO date (2021-08-25): once computed as 2021 - 8 - 25, so 1988 was paid for it (a review)
# (also 2021-8-25, en/em dashes and a dash in \text: a seventh review computed those too)
_DASH = r"\s*+(?:[-‐‑‒–—−]|\\text\s*+\{\s*+[-‐‑‒–—−]\s*+\})\s*+"
_ISO_DATE_RE = re.compile(r"(\d{4})" + _DASH + r"(\d{1,2})" + _DASH + r"(\d{1,2})")


def _iso_date(t: str) -> tuple[int, int, int] | None:
    m = _ISO_DATE_RE.fullmatch(t)
    if m and 1 <= int(m[2]) <= 12 and 1 <= int(m[3]) <= 31:
        return int(m[2]), int(m[3]), int(m[1])
    return None


def date_answer(text: str) -> tuple[int, int, int | None] | None:
    """(month, day, year or None) when ``text`` is a calendar date written with a month
    name or as an ISO date (yyyy-mm-dd), else None."""
    t = text.strip().rstrip(".").strip()
    iso = _iso_date(t)
    if iso is not None:
        return iso
    for rx in _DATE_RES:
        m = rx.fullmatch(t)
        if m:
            month = next(i for i, name in enumerate(_MONTHS, 1) if name.startswith(m["m"].lower().rstrip(".")))
            day = int(m["d"])
            if 1 <= day <= 31:
                return month, day, int(m["y"]) if m["y"] else None
    return None


_EMPTY_RE = re.compile(
    r"(?:\\emptyset|\\varnothing|∅|\\\{\s*\\\}|\{\s*\}|(?:the\s+)?empty\s+set|none|"
    r"(?:there\s+(?:is|are)\s+)?no\s+(?:real\s+)?(?:solutions?|roots?|values?|such\s+\w+))",
    re.I)


def empty_claim(text: str) -> bool:
    """Does ``text`` (an answer, wrappers stripped) say there is nothing: the empty set or
    "no solution"?"""
    t = re.sub(r"\\(?:left|right)(?=[\\{}])", "", text).strip().rstrip(".").strip()
    return bool(_EMPTY_RE.fullmatch(t))


def claim_forms(gold: str, pred: str) -> tuple[bool, str] | None:
    """A verdict when the gold is a date or an empty claim, else None."""
    gd = date_answer(gold)
    if gd is not None:
        pd = date_answer(pred)
        if pd is None:
            return False, "a date is the answer"
        same = gd[:2] == pd[:2] and (gd[2] is None or gd[2] == pd[2])
        return same, "dates equal" if same else "dates differ"
    if _iso_date(pred.strip().rstrip(".").strip()) is not None:
        return False, "a date against a non-date"  # 2021-08-25 is no difference of numbers
    if empty_claim(gold):
        same = empty_claim(pred)
        return same, "no solution either way" if same else "the answer is that there is none"
    return None
