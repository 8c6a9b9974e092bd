"""The LaTeX/plain tokenizer, normaliser and recursive-descent parser."""

from __future__ import annotations

import pytest

from verifier.math.latex import ParseError, parse
from verifier.math.normalize import normalize


def p(s: str) -> list:
    return parse(normalize(s))


def num(m: int, e: int = 0) -> list:
    return ["num", m, e]


@pytest.mark.parametrize("text, tree", [
    (r"\frac{1}{2}", ["div", num(1), num(2)]),
    (r"\dfrac12", ["div", num(1), num(2)]),
    ("1/2", ["div", num(1), num(2)]),
    (r"2\frac{1}{3}", ["add", [num(2), ["div", num(1), num(3)]]]),  # mixed number
    (r"\sqrt[3]{8}", ["pow", num(8), ["div", num(1), num(3)]]),
    ("1.5e-3", num(15, -4)),
    ("1,000,000", num(1000000)),
    (r"1{,}000", num(1000)),
    (r"30^\circ", num(30)),
    ("30°", num(30)),
    (r"10 \text{ cm}^2", num(10)),
    (r"\$5", num(5)),
    ("50\\%", ["pct", num(50)]),
    ("[1,2)", ["interval", num(1), num(2), False, True]),
    (r"(-\infty, 3]", ["interval", ["neg", ["const", "oo"]], num(3), True, False]),
    ("(1,2)", ["paren", [num(1), num(2)]]),
    (r"\{1,2\}", ["set", [num(1), num(2)]]),
    (r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", ["matrix", [[num(1), num(2)], [num(3), num(4)]]]),
    ("x = 3", ["eq", ["sym", "x"], num(3)]),
    (r"1 < x \le 3", ["rel", [num(1), ["sym", "x"], num(3)], ["<", "<="]]),
    (r"x = 1 \text{ or } x = 2", ["list", [["eq", ["sym", "x"], num(1)], ["eq", ["sym", "x"], num(2)]]]),
    (r"3 \pm \sqrt{5}", ["pm", num(3), ["func", "sqrt", [num(5)]]]),
    ("10^10^10", ["pow", num(10), ["pow", num(10), num(10)]]),  # right-associative
    ("2xy", ["mul", [num(2), ["sym", "x"], ["sym", "y"]]]),
    (r"x \in [1, 4]", ["interval", num(1), num(4), False, False]),
    (r"\sin^2 x", ["pow", ["func", "sin", [["sym", "x"]]], num(2)]),
    ("e^{i\\pi}", ["pow", ["const", "E"], ["mul", [["const", "I"], ["const", "pi"]]]]),
])
def test_parse(text, tree):
    assert p(text) == tree


@pytest.mark.parametrize("text", [
    r"\frac{5}{", "5 +", r"\unknowncommand{7}", "@#", "(1, 2", r"\begin{tabular}1\end{tabular}",
    "(" * 400 + "1" + ")" * 400, "", "1" * 1200,
])
def test_unparsable_is_a_parse_error(text):
    with pytest.raises(ParseError):
        p(text)


def test_ratio_is_a_quotient():
    assert p("3:2") == ["div", num(3), num(2)]
