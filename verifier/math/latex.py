"""Tokeniser and recursive-descent parser for the LaTeX/plain-text answer subset.

The parser is pure Python and builds a small AST of JSON-friendly lists (so it can be
sent to a worker process), never a sympy object: building sympy objects can evaluate
``10^{10^{10}}`` eagerly, which must only happen inside a killable worker.

Nodes (first element is the tag):
  ["num", mantissa, exp10]    exact decimal mantissa * 10**exp10 (``1.5e-3`` -> 15, -4)
  ["sym", name] ["const", "pi"|"E"|"I"|"oo"] ["neg", x] ["add", [xs]] ["mul", [xs]]
  ["div", a, b] ["pow", a, b] ["func", name, [args]] ["fact", x] ["pct", x] ["abs", x]
  ["pm", a, b]                a +- b (two answers)
  ["set", [xs]] ["tuple", [xs]] ["paren", [a, b]] (tuple or open interval, decided later)
  ["interval", lo, hi, lo_open, hi_open] ["union", [xs]] ["reals"] ["matrix", [[..]]]
  ["eq", lhs, rhs] ["rel", [xs], [ops]] ["list", [xs]] (several answers, unordered)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_ANSWER_CHARS = 5000

FUNCS = {
    "sin", "cos", "tan", "cot", "sec", "csc", "arcsin", "arccos", "arctan", "sinh", "cosh",
    "tanh", "ln", "log", "exp", "sqrt", "det", "gcd", "lcm", "max", "min", "floor", "ceil",
}
GREEK = {
    "alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "eta", "theta",
    "vartheta", "iota", "kappa", "lambda", "mu", "nu", "xi", "rho", "sigma", "tau",
    "upsilon", "phi", "varphi", "chi", "psi", "omega", "Gamma", "Delta", "Theta", "Lambda",
    "Sigma", "Phi", "Psi", "Omega",
}
_WORD_CONSTS = {"pi": ["const", "pi"], "inf": ["const", "oo"], "infty": ["const", "oo"],
                "infinity": ["const", "oo"]}
_REL_OPS = {"=": "=", "<": "<", ">": ">", "<=": "<=", ">=": ">=", "!=": "!=",
            "\\le": "<=", "\\leq": "<=", "\\leqslant": "<=", "\\ge": ">=", "\\geq": ">=",
            "\\geqslant": ">=", "\\lt": "<", "\\gt": ">", "\\ne": "!=", "\\neq": "!="}


def is_math_word(w: str) -> bool:
    return w.lower() in FUNCS or w.lower() in _WORD_CONSTS or w in GREEK


class ParseError(ValueError):
    """The answer is not in the supported LaTeX/plain subset."""


class Unsupported(ParseError):
    """Well-formed LaTeX this parser does not know (``\\sum``, ``cases``): another parser
    (math-verify, in the worker) may read it. Any other ParseError is a malformed answer."""


class TooLong(ParseError):
    """A literal or nesting too large to handle: the answer is too large to judge."""


class Ambiguous(ParseError):
    """The answer is written in a way that has no single reading (``3 4``, ``(x+1)'``):
    a prediction like that is wrong, and no other parser gets to guess."""


@dataclass(frozen=True)
class Tok:
    kind: str  # NUM WORD CMD OP END
    text: str


_TOKEN_RE = re.compile(
    r"(?P<num>\d+(?:\.\d*)?(?:[eE][+-]?\d+(?![a-zA-Z]))?|\.\d+(?:[eE][+-]?\d+)?)"
    r"|(?P<cmd>\\[a-zA-Z]+|\\[{}|\\%$#&])"
    r"|(?P<word>[a-zA-Z]+)"
    r"|(?P<op>\*\*|<=|>=|!=|[-+*/^_(){}\[\],;|!%=<>&:'])"
    r"|(?P<ws>\s+)"
)


def tokenize(s: str) -> list[Tok]:
    toks: list[Tok] = []
    pos = 0
    while pos < len(s):
        m = _TOKEN_RE.match(s, pos)
        if not m:
            raise ParseError(f"unexpected character {s[pos]!r} at {pos}")
        pos = m.end()
        kind = m.lastgroup
        if kind == "ws":
            # "3 4" is two numbers, never 3*4 (the space is not an operator); "\frac 1 2"
            # is fine: there the numbers are the arguments of a command
            nxt = _TOKEN_RE.match(s, pos)
            if (toks and toks[-1].kind == "NUM" and nxt and nxt.lastgroup == "num"
                    and not (len(toks) > 1 and toks[-2].kind == "CMD")):
                raise Ambiguous(f"two numbers separated by a space at {pos}")
            continue
        text = m.group(0)
        if kind == "op" and text == "**":
            text = "^"
        toks.append(Tok(kind.upper(), text))
    toks.append(Tok("END", ""))
    return toks


def num_node(text: str) -> list:
    """Exact decimal literal -> ["num", mantissa, exp10]."""
    mant, _, exp = text.lower().partition("e")
    whole, _, frac = mant.partition(".")
    digits = (whole or "0") + frac
    if len(digits) > 1000 or len(exp) > 7:
        raise TooLong("number literal too long")
    return ["num", int(digits), (int(exp) if exp else 0) - len(frac)]


_PRIMARY_CMDS = {"\\frac", "\\sqrt", "\\pi", "\\infty", "\\binom", "\\lfloor", "\\lceil",
                 "\\begin", "\\mathbb", "\\emptyset", "\\varnothing", "\\{", "\\operatorname",
                 "\\exp", "\\ln", "\\log", "\\|"}


class Parser:
    def __init__(self, text: str):
        if len(text) > MAX_ANSWER_CHARS:
            raise TooLong(f"answer longer than {MAX_ANSWER_CHARS} characters")
        self.toks = tokenize(text)
        self.i = 0
        self.abs_depth = 0

    # -- token helpers --------------------------------------------------------------
    @property
    def tok(self) -> Tok:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def take(self) -> Tok:
        t = self.toks[self.i]
        self.i += 1
        return t

    def at(self, *texts: str) -> bool:
        return self.tok.text in texts and self.tok.kind != "END"

    def expect(self, text: str) -> None:
        if self.tok.text != text:
            raise ParseError(f"expected {text!r}, found {self.tok.text or 'end'!r}")
        self.i += 1

    # -- top level --------------------------------------------------------------------
    def parse_answer(self) -> list:
        items = [self.parse_relation()]
        while self.at(",", ";") or (self.tok.kind == "WORD" and self.tok.text in ("or", "and")):
            self.take()
            if self.tok.kind == "END":
                break
            items.append(self.parse_relation())
        if self.tok.kind != "END":
            raise ParseError(f"unexpected {self.tok.text!r}")
        return items[0] if len(items) == 1 else ["list", items]

    def parse_relation(self) -> list:
        exprs = [self._ratio()]
        ops: list[str] = []
        while self.tok.text in _REL_OPS or self.at("\\in"):
            op = self.take().text
            if op == "\\in":
                if exprs[0][0] != "sym" or ops:  # `4 \in 3` is no answer (it was read as 3)
                    raise ParseError("'\\in' needs a variable on its left")
                region = self.parse_setexpr()
                if region[0] not in ("set", "interval", "paren", "union", "reals"):
                    raise ParseError("'\\in' needs a set on its right")  # `x \in 3` was read as 3
                return region
            ops.append(_REL_OPS[op])
            exprs.append(self._ratio())
        if not ops:
            return exprs[0]
        if all(o == "=" for o in ops):
            if len(exprs) > 2 and any(e[0] != "sym" for e in exprs[:-1]):
                # `x = 2+2 = 4` is fine, but a chain whose middle is dropped would pay
                # `x = 4 = 3` for 3: its sides must all be the same answer
                return ["eqchain", exprs]
            return ["eq", exprs[0], exprs[-1]]
        return ["rel", exprs, ops]

    def _ratio(self) -> list:
        """``a : b`` is the number a/b (so 3:2 equals 6:4 and 1.5)."""
        left = self.parse_setexpr()
        if self.at(":"):
            self.take()
            right = self.parse_setexpr()
            if right[0] == "num" and right[1] == 0:
                raise Ambiguous("a ratio with a zero second term")
            return ["div", left, right]
        return left

    def parse_setexpr(self) -> list:
        left = self.parse_expr()
        parts = [left]
        while self.at("\\cup") or (self.tok.text == "U" and parts[-1][0] in ("interval", "paren")):
            self.take()
            parts.append(self.parse_expr())
        return parts[0] if len(parts) == 1 else ["union", parts]

    # -- arithmetic -------------------------------------------------------------------
    def parse_expr(self) -> list:
        terms = [self.parse_term()]
        while self.at("+", "-", "\\pm", "\\mp"):
            op = self.take().text
            t = self.parse_term()
            if op in ("\\pm", "\\mp"):
                left = terms[0] if len(terms) == 1 else ["add", terms]
                terms = [["pm", left, t if op == "\\pm" else ["neg", t]]]
            else:
                terms.append(t if op == "+" else ["neg", t])
        return terms[0] if len(terms) == 1 else ["add", terms]

    def parse_term(self) -> list:
        if self.at("\\pm"):  # leading +-: "\pm 3"
            self.take()
            return ["pm", ["num", 0, 0], self.parse_term()]
        factors = [self.parse_signed()]
        while True:
            if self.at("*", "\\cdot", "\\times"):
                self.take()
                factors.append(self.parse_signed())
            elif self.at("/", "\\div"):
                self.take()
                num = factors[0] if len(factors) == 1 else ["mul", factors]
                factors = [["div", num, self.parse_signed()]]
            elif self._starts_primary():
                if self.at("\\frac") and len(factors) == 1 and self._is_int_lit(factors[0]):
                    frac = self.parse_power()
                    inner, pct = (frac[1], True) if frac[0] == "pct" else (frac, False)
                    if inner[0] == "div" and self._is_int_lit(inner[1]) and self._is_int_lit(inner[2]):
                        if not 0 <= inner[1][1] < inner[2][1]:
                            # 3\frac{4}{2}: 3 + 2 or 3 * 2? Neither reading is safe (it was
                            # paid as 5: a seventh review); a mixed number's fraction is proper
                            raise Ambiguous("an integer before an improper fraction")
                        mixed = ["add", [factors[0], inner]]  # mixed number 2\frac{1}{3}
                        factors = [["pct", mixed] if pct else mixed]
                    else:
                        factors.append(frac)
                    continue
                factors.append(self.parse_power())
            else:
                break
        return factors[0] if len(factors) == 1 else ["mul", factors]

    @staticmethod
    def _is_int_lit(node: list) -> bool:
        return node[0] == "num" and node[2] == 0

    def _starts_primary(self) -> bool:
        t = self.tok
        if t.kind in ("NUM",):
            return True
        if t.kind == "WORD":
            return t.text not in ("or", "and", "U")
        if t.kind == "CMD":
            name = t.text[1:]
            return t.text in _PRIMARY_CMDS or name in FUNCS or name in GREEK or name == "sqrt"
        if t.text in ("(", "{"):
            return True
        if t.text == "|" and self.abs_depth == 0:
            return True
        return False

    def parse_signed(self) -> list:
        if self.at("-"):
            self.take()
            return ["neg", self.parse_signed()]
        if self.at("+"):
            self.take()
            return self.parse_signed()
        return self.parse_power()

    def parse_power(self) -> list:
        base = self.parse_postfix()
        if self.at("^"):
            self.take()
            if self.at("{"):
                exp = self.parse_group()
            else:
                exp = self.parse_signed()  # right-associative: 10^10^10
            base = ["pow", base, exp]
            base = self._postfix_ops(base)
        return base

    def parse_postfix(self) -> list:
        return self._postfix_ops(self.parse_primary())

    def _postfix_ops(self, node: list) -> list:
        while self.at("!", "%", "'"):
            op = self.take().text
            if op == "!":
                if node[0] == "fact" and node[1][0] == "fact" and node[1][1][0] == "fact":
                    raise TooLong("more than three factorial signs in a row")  # 3!!!...: a degenerate answer
                node = ["fact", node]
            elif op == "%":
                if node[0] == "pct":  # 25%% would match 25, 0.25 and 0.0025 (a review's hedge)
                    raise Ambiguous("two percent signs")
                node = ["pct", node]
            elif node[0] == "sym":  # E' is another name than E, f' another than f
                node = ["sym", node[1] + "'"]
            else:
                raise Ambiguous("a prime mark on an expression")
        return node

    def parse_group(self) -> list:
        """``{ expr }`` as one expression."""
        self.expect("{")
        saved, self.abs_depth = self.abs_depth, 0
        e = self.parse_relation()
        self.abs_depth = saved
        self.expect("}")
        return e

    def _arg(self) -> list:
        """A command argument: a ``{...}`` group or a single token."""
        if self.at("{"):
            return self.parse_group()
        t = self.take()
        if t.kind == "NUM":
            if len(t.text) > 1 and t.text.isdigit():  # \frac12 = \frac{1}{2}
                self.toks.insert(self.i, Tok("NUM", t.text[1:]))
                return num_node(t.text[0])
            return num_node(t.text)
        if t.kind == "WORD":
            if len(t.text) > 1:
                self.toks.insert(self.i, Tok("WORD", t.text[1:]))
            return ["sym", t.text[0]] if t.text[0] not in "ei" else self._letter(t.text[0])
        if t.kind == "CMD":
            self.i -= 1
            return self.parse_primary()
        raise ParseError(f"missing argument before {t.text or 'end'!r}")

    @staticmethod
    def _letter(ch: str) -> list:
        if ch == "e":
            return ["const", "E"]
        if ch == "i":
            return ["const", "I"]
        return ["sym", ch]

    def _subscript(self, node: list) -> list:
        if self.at("_") and node[0] == "sym":
            self.take()
            sub = self.take() if not self.at("{") else None
            if sub is None:
                self.take()
                parts = []
                while not self.at("}") and self.tok.kind != "END":
                    parts.append(self.take().text)
                self.expect("}")
                text = "".join(parts)
            else:
                text = sub.text
            return ["sym", f"{node[1]}_{text}"]
        return node

    def _list_until(self, closers: tuple[str, ...]) -> tuple[list, str]:
        saved, self.abs_depth = self.abs_depth, 0
        items = [self.parse_relation()]
        while self.at(",", ";"):
            self.take()
            items.append(self.parse_relation())
        self.abs_depth = saved
        if not self.at(*closers):
            raise ParseError(f"expected one of {closers}, found {self.tok.text or 'end'!r}")
        return items, self.take().text

    def parse_primary(self) -> list:
        t = self.tok
        if t.kind == "NUM":
            self.take()
            return num_node(t.text)
        if t.kind == "WORD":
            return self._word()
        if t.text in ("(", "["):
            self.take()
            items, close = self._list_until((")", "]"))
            if len(items) == 1:
                if t.text == "(" and close == ")" or t.text == "[" and close == "]":
                    return items[0]
                raise ParseError("half-open bracket around a single value")
            if len(items) == 2 and not (t.text == "(" and close == ")"):
                return ["interval", items[0], items[1], t.text == "(", close == ")"]
            if len(items) == 2 and t.text == "(":
                return ["paren", items]
            return ["tuple", items]
        if t.text == "{":
            self.take()
            items, _ = self._list_until(("}",))
            return items[0] if len(items) == 1 else ["set", items]
        if t.text == "\\{":
            self.take()
            if self.at("\\}"):
                self.take()
                return ["set", []]
            items, _ = self._list_until(("\\}",))
            return ["set", items]
        if t.text in ("|", "\\|"):
            self.take()
            self.abs_depth += 1
            e = self.parse_expr()
            self.abs_depth -= 1
            self.expect(t.text)
            return ["abs", e]
        if t.kind == "CMD":
            return self._command()
        raise ParseError(f"unexpected {t.text or 'end of answer'!r}")

    def _word(self) -> list:
        w = self.take().text
        if w in _WORD_CONSTS:
            return self._subscript(list(_WORD_CONSTS[w]))
        if w in FUNCS:
            return self._function(w)
        if w in GREEK:
            return self._subscript(["sym", w])
        if len(w) == 1:
            return self._subscript(self._letter(w))
        if len(w) >= 4:
            raise ParseError(f"word {w!r} is prose, not math")
        # "xy" is x*y; hand the rest back to the token stream
        self.toks.insert(self.i, Tok("WORD", w[1:]))
        return self._letter(w[0])

    def _function(self, name: str) -> list:
        power = None
        base = None
        if name == "log" and self.at("_"):
            self.take()
            base = self._arg()
        if self.at("^"):
            self.take()
            power = self._arg()
        if self.at("("):
            self.take()
            args, _ = self._list_until((")",))
        elif self.at("{"):
            args = [self.parse_group()]
        else:
            arg = [self.parse_power()]
            while self.tok.kind in ("NUM", "WORD") and self.tok.text not in FUNCS | {"or", "and"}:
                arg.append(self.parse_power())
            args = [arg[0] if len(arg) == 1 else ["mul", arg]]
        node = ["func", name, args]
        if base is not None:
            node = ["div", ["func", "ln", args], ["func", "ln", [base]]]
        if power is not None:
            node = ["pow", node, power]
        return node

    def _command(self) -> list:
        name = self.take().text[1:]
        if name == "frac":
            return ["div", self._arg(), self._arg()]
        if name == "binom":
            return ["func", "binomial", [self._arg(), self._arg()]]
        if name == "sqrt":
            if self.at("["):
                self.take()
                n = self.parse_expr()
                self.expect("]")
                return ["pow", self._arg(), ["div", ["num", 1, 0], n]]
            return ["func", "sqrt", [self._arg()]]
        if name == "pi":
            return ["const", "pi"]
        if name == "infty":
            return ["const", "oo"]
        if name in ("emptyset", "varnothing"):
            return ["set", []]
        if name == "mathbb":
            self.expect("{")
            letter = self.take().text
            self.expect("}")
            if letter == "R":
                return ["reals"]
            raise Unsupported(f"unsupported \\mathbb{{{letter}}}")
        if name in ("lfloor", "lceil"):
            e = self.parse_expr()
            self.expect("\\rfloor" if name == "lfloor" else "\\rceil")
            return ["func", "floor" if name == "lfloor" else "ceiling", [e]]
        if name == "operatorname":
            self.expect("{")
            fname = self.take().text
            self.expect("}")
            if fname not in FUNCS:
                raise Unsupported(f"unknown function {fname!r}")
            return self._function(fname)
        if name == "begin":
            return self._matrix()
        if name in FUNCS:
            return self._function(name)
        if name in GREEK:
            return self._subscript(["sym", name])
        raise Unsupported(f"unsupported command \\{name}")

    def _matrix(self) -> list:
        self.expect("{")
        env = self.take().text
        self.expect("}")
        if env not in ("pmatrix", "bmatrix", "matrix", "vmatrix", "Bmatrix", "smallmatrix",
                       "array"):
            raise Unsupported(f"unsupported environment {env!r}")
        if env == "array":  # skip the column spec {cc}
            self.expect("{")
            while not self.at("}"):
                if self.take().kind == "END":
                    raise ParseError("unterminated array column spec")
            self.take()
        rows: list[list] = [[]]
        while True:
            if self.at("\\end"):
                break
            rows[-1].append(self.parse_expr())
            if self.at("&"):
                self.take()
            elif self.at("\\\\"):
                self.take()
                if not self.at("\\end"):
                    rows.append([])
            elif not self.at("\\end"):
                raise ParseError(f"unexpected {self.tok.text!r} in matrix")
        self.take()
        self.expect("{")
        self.take()
        self.expect("}")
        if len({len(r) for r in rows}) != 1 or not rows[0]:
            raise ParseError("ragged or empty matrix")
        node = ["matrix", rows]
        return ["func", "det", [node]] if env == "vmatrix" else node


def parse(text: str) -> list:
    """Parse a normalised answer string into the AST; raises ParseError."""
    if not text.strip():
        raise ParseError("empty answer")
    try:
        return Parser(text).parse_answer()
    except RecursionError as exc:
        raise TooLong("answer nested too deeply") from exc

