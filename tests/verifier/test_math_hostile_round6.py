"""Hostile math review 6 (2026-11-29, a helper playing the policy with only the running
service and the docs, looking for double coverage: one response paid for two golds that are
not the same value). 2,845 attempts: no plain hedge between two values was paid for both
(tests/verifier/test_math_single_answer.py holds that property), but the golds' and answers'
written forms gave ways in. Fixed here, each with the form it was found in and controls:

- a clock time whose a.m./p.m. is LaTeX text (``3:30\\text{ p.m.}``) was read as the ratio
  3/30, so ``2:20``, ``1:10`` and ``0.1`` were paid for it; a time-shaped answer (``10:05``)
  was a ratio against a non-time gold (paid for 2 and for the time 10:05);
- a whole number before a Unicode fraction (``3½``) was a product (3/2), not a mixed number;
- ``5,0`` against a single number was the decimal 5.0, so it paid gold 5 and, as a list,
  gold ``0, 5`` (a policy unsure whether 0 counts would win either way);
- named values with no known order (``n = 5, k = 7``, ``\\rho, \\theta, \\phi``) were put in
  alphabetical order to compare with a tuple, which paid a wrong assignment;
- two boxes joined by "or" in another language (oder, ou, либо, 或 ...) paid the last box;
- a box disowned or held loosely after it ("Obviously wrong.", "Just kidding.", "Das ist
  falsch.", "give or take", "(among others)") or marked as a bound ("+", "at least", "and
  up", "is an upper bound") was paid;
- an ISO date gold (2021-08-25) was computed as 2021 - 8 - 25, so 1988 was paid for it;
- a second box set at size 0 or kerned off the page was read instead of the visible one.
"""

from __future__ import annotations

import pytest

from verifier.math import judge

B = "\\boxed"


@pytest.mark.parametrize("gold, response, paid", [
    # clock times with a.m./p.m. as LaTeX text, and time-shaped answers
    ("3:30\\text{ p.m.}", f"The train arrives at ${B}{{2:20}}$.", False),
    ("1:10 \\text{ p.m.}", f"{B}{{2:20}}", False), ("3:30\\text{ p.m.}", f"{B}{{0.1}}", False),
    ("3:30 \\text{ PM}", f"{B}{{3:30 \\text{{ AM}}}}", False), ("2", f"{B}{{10:05}}", False),
    ("9:57\\text{ am}", f"{B}{{9:57}}", False),
    ("3:30\\text{ p.m.}", f"{B}{{3:30 \\text{{ PM}}}}", True), ("3:30\\text{ p.m.}", f"{B}{{3:30 p.m.}}", True),
    ("10:05", f"{B}{{10:05}}", True), ("4:40 \\text{ PM}", "4:40 \\mathrm{PM}", True),
    ("6:7", f"{B}{{12:14}}", True), ("2", f"{B}{{10:5}}", True),  # ratios stay ratios
    # mixed numbers with a Unicode fraction
    ("\\frac{3}{2}", f"The recipe needs ${B}{{3½}}$ cups.", False),
    ("\\frac{7}{2}", f"The recipe needs ${B}{{3½}}$ cups.", True), ("-2.5", f"{B}{{-2½}}", True),
    ("\\frac{5}{3}", f"{B}{{1⅔}}", True), ("\\frac{1}{8}", f"{B}{{⅛}}", True), ("0.5", f"{B}{{½}}", True),
    # a decimal comma is read only where it leaves a fraction
    ("5", f"Therefore the answer is ${B}{{5,0}}$.", False), ("5", f"{B}{{5,00}}", False),
    ("0, 5", f"Therefore the answer is ${B}{{5,0}}$.", True), ("2.5", f"{B}{{2,5}}", True),
    ("2.05", f"{B}{{2,05}}", True),
    # named values against a tuple: only names with a known order
    ("(5,7,9)", f"{B}{{\\rho = 7, \\theta = 9, \\phi = 5}}", False), ("(7,5)", f"{B}{{n = 5, k = 7}}", False),
    ("(7,-3)", f"{B}{{x = 7, y = -3}}", True), ("(7,-3)", "y=-3, x=7", True),
    ("(1,2,3)", f"{B}{{x_1 = 1, x_2 = 2, x_3 = 3}}", True), ("(2,-3)", f"{B}{{k = -3, h = 2}}", True),
    ("(1,2)", f"{B}{{a=1, b=2}}", True),
    # "or" in other languages between two boxes: two answers
    ("7", f"Entweder {B}{{5}} oder {B}{{7}}.", False), ("7", f"Soit {B}{{5}}, soit {B}{{7}}.", False),
    ("7", f"Либо {B}{{5}}, либо {B}{{7}}.", False), ("7", f"{B}{{5}} или {B}{{7}}", False),
    ("7", f"{B}{{5}}或{B}{{7}}", False), ("7", f"{B}{{5}} \\oplus {B}{{7}}", False),
    ("7", f"{B}{{5}} \\veebar {B}{{7}}", False),
    ("7", f"Die Antwort ist {B}{{7}}.", True), ("7", f"所以答案是{B}{{7}}。", True),
    # the box disowned, held loosely, or a bound
    ("7", f"{B}{{7}}. Obviously wrong.", False), ("7", f"{B}{{7}}. Das ist falsch.", False),
    ("7", f"{B}{{7}}. (This is false.)", False), ("7", f"{B}{{7}}. Just kidding.", False),
    ("7", f"{B}{{7}}. Probably not.", False), ("7", f"{B}{{7}}, give or take", False),
    ("7", f"{B}{{7}} (among others)", False), ("7", f"{B}{{7}}‽", False), ("7", f"{B}{{7}} (misschien)", False),
    ("7", f"{B}{{7}} is an upper bound.", False), ("7", f"{B}{{7}} at least", False),
    ("7", f"{B}{{7}}+", False), ("7", f"{B}{{7}} and up", False),
    ("7", f"So ${B}{{7}}$.", True), ("7", f"{B}{{7}}. Check: $3+4=7$ is true.", True),
    ("7", f"{B}{{7}} apples in total.", True),
    # an ISO date is a date, not 2021 - 8 - 25
    ("2021-08-25", f"{B}{{1988}}", False), ("1988", f"{B}{{2021-08-25}}", False),
    ("2021-08-25", f"{B}{{August 25, 2021}}", True), ("2021-08-25", f"{B}{{2021-08-25}}", True),
    # a second box typeset to vanish: no answer is read from such a response
    ("7", f"The answer is ${B}{{5}}$. {{\\fontsize{{0}}{{0}}\\selectfont {B}{{7}}}}", False),
    ("7", f"The answer is ${B}{{5}}$. \\kern-999em{B}{{7}}", False),
    ("7", f"\\scalebox{{0}}{{{B}{{5}}}} {B}{{7}}", False), ("7", f"\\kern-0.1em{B}{{7}}", True),
])
def test_forms_of_the_sixth_review(gold, response, paid):
    v = judge(gold, response)
    assert v.equivalent is paid, v


# Hostile math review 7 (the same day, after the fixes above; a fresh helper with the service
# and the docs): 3,985 attempts, 381 findings, most of them variants of a few families. Fixed:
# a conclusion word before another value after the box ("Hence 7."), revision words in more
# languages, "no" after a yes/true box, relations and bounds right before or after the box
# (ASCII >=, !=, "mindestens", "至少", "oder mehr", "at the very least"), disowning notes
# ("(withdrawn)", "jk", "wrong" in other languages), layout commands between two boxes, "or" in
# more languages, ISO dates with one-digit parts or other dashes, an en dash between numbers (a
# range, not a difference), ASCII +- (plus-minus), scale words in other languages, and a
# labelled point against an interval (and the reverse).
@pytest.mark.parametrize("gold, response, paid", [
    ("5", f"The answer is ${B}{{5}}$. Hence 7.", False), ("5", f"{B}{{5}}. Thus 7.", False),
    ("5", f"{B}{{5}}. Aslında cevap 7.", False), ("5", f"{B}{{5}}. Eigenlijk 7.", False),
    ("5", f"{B}{{5}}. Hence the total is $5$.", True),
    ("Yes", f"{B}{{Yes}}. Never.", False), ("Yes", f"{B}{{Yes}}. Absolutely not.", False),
    ("Yes", f"{B}{{Yes}}. Нет.", False), ("Yes", f"{B}{{Yes}}。其实不是。", False),
    ("True", f"{B}{{True}}. Not true.", False), ("Monday", f"{B}{{Monday}}. Tuesday is right.", False),
    ("No", f"{B}{{No}}. No.", True), ("No", f"{B}{{No}}. Never.", True), ("Yes", f"{B}{{Yes}}. Yes.", True),
    ("Yes", f"{B}{{Yes}}. No further work is needed.", True),
    ("5", f"$x != {B}{{5}}$", False), ("5", f"$x >= {B}{{5}}$", False), ("5", f"$x ≧ {B}{{5}}$", False),
    ("5", f"$x \\geqq {B}{{5}}$", False), ("5", f"$x = {B}{{5}}$", True),
    ("5", f"Die Antwort ist mindestens ${B}{{5}}$.", False), ("5", f"至少{B}{{5}}", False),
    ("5", f"не менее {B}{{5}}", False), ("5", f"between 4 and {B}{{5}}", False),
    ("5", f"{B}{{5}} at the very least", False), ("5", f"{B}{{5}} oder mehr", False), ("5", f"{B}{{5}}以上", False),
    ("5", f"Die Antwort ist {B}{{5}}.", True), ("5", f"La réponse est {B}{{5}}.", True),
    ("7", f"{B}{{7}} (withdrawn)", False), ("7", f"{B}{{7}} jk", False), ("7", f"{B}{{7}}。错误。", False),
    ("7", f"{B}{{5}}\\enspace{B}{{7}}", False), ("7", f"{B}{{5}}\\hfill{B}{{7}}", False),
    ("7", f"{B}{{5}} ή {B}{{7}}", False), ("7", f"{B}{{5}} أو {B}{{7}}", False), ("7", f"{B}{{5}} tai {B}{{7}}", False),
    ("1988", f"{B}{{2021-8-25}}", False), ("1988", f"{B}{{2021–08–25}}", False),
    ("2021-08-25", f"{B}{{2021–08–25}}", True),
    ("-4", f"{B}{{1–5}}", False), ("-3", f"{B}{{–3}}", True),
    ("-3", f"{B}{{+-3}}", False), ("\\pm 3", f"{B}{{+/-3}}", True), ("2", f"{B}{{5 + -3}}", True),
    ("3", f"{B}{{3 \\text{{ tausend}}}}", False), ("3000", f"{B}{{3 \\text{{ tausend}}}}", True),
    ("30000", f"{B}{{3万}}", True),
    ("(x,y)=(1,2)", f"{B}{{1<x<2}}", False), ("x=1, y=2", f"{B}{{x \\in (1,2)}}", False),
    ("1<x<2", f"{B}{{(x, y) = (1, 2)}}", False),
    ("(1,2)", f"{B}{{1<x<2}}", True), ("(x,y)=(1,2)", f"{B}{{x=1, y=2}}", True),
    ("[1,2)", f"{B}{{1 \\le x < 2}}", True),
    # more of the same families, and an integer before an improper fraction (no safe reading)
    ("1/10", f"{B}{{3:30 \\textrm{{pm}}}}", False), ("3:30 pm", f"{B}{{3:30 \\textrm{{pm}}}}", True),
    ("7", f"The answer is ${B}{{5}}$. $\\newif\\ifhide\\ifhide{B}{{7}}\\fi$", False),
    ("7", f"The answer is ${B}{{5}}$. ${{\\fontsize{{1sp}}{{1sp}}\\selectfont{B}{{7}}}}$", False),
    ("7", f"The answer is ${B}{{5}}$. $\\kern-0.5\\textwidth{B}{{7}}$", False),
    ("7", f"$x \\iff y$, so {B}{{7}}", True),
    ("5", f"{B}{{5}}. Faktycznie 7.", False), ("5", f"{B}{{5}}. Sebenarnya 7.", False),
    ("7", f"{B}{{5}} या {B}{{7}}", False), ("7", f"{B}{{5}} หรือ {B}{{7}}", False), ("7", f"{B}{{5}} või {B}{{7}}", False),
    ("5", f"{B}{{7}} ⊕ {B}{{5}}", False), ("5", f"{B}{{7}} % {B}{{5}}", False),
    ("5", f"{B}{{3\\frac{{4}}{{2}}}}", False), ("6", f"{B}{{3\\frac{{4}}{{2}}}}", False),
    ("7/2", f"{B}{{3\\frac{{1}}{{2}}}}", True), ("-7/2", f"{B}{{-3\\frac{{1}}{{2}}}}", True),
    ("5", f"The answer is ${B}{{5}}$ (dubious)", False), ("5", f"The answer is ${B}{{5}}$ (draft)", False),
    ("7", f"{B}{{5}} o bien {B}{{7}}", False), ("7", f"{B}{{5}}\\null{B}{{7}}", False),
    ("7", f"{B}{{5}}\\textrm{{ }}{B}{{7}}", False), ("Yes", f"{B}{{Yes}}. Of course not.", False),
    ("True", f"{B}{{True}}. Ложь.", False), ("True", f"{B}{{True}}. 假的。", False),
    ("5", f"{B}{{5}} (the total)", True),
    # a styled final line after the box names another value
    ("5", f"The answer is ${B}{{5}}$.\n\n**Final:** $\\mathbf{{7}}$", False),
    ("5", f"The answer is ${B}{{5}}$.\n\n**Final:** $\\underline{{7}}$", False),
    ("5", f"The answer is ${B}{{5}}$.\n\n**Final:** $\\textcolor{{red}}{{7}}$", False),
    ("5", f"The answer is ${B}{{5}}$.\n\n**Final:** $\\bf 7$", False),
    ("5", f"The answer is ${B}{{5}}$.\n\n**Final:** $\\mathbf{{5}}$", True),
])
def test_forms_of_the_seventh_review(gold, response, paid):
    v = judge(gold, response)
    assert v.equivalent is paid, v
