"""The fixed judging workload of bench/judge_vs_bare.py: problems and generated submissions.

Problems are beginner sample problems (samples/stdio) whose checker is a plain built-in
(integers, tokens, lines), so the bare side can judge them with its own comparator
(``bench.judge_compare``). Submissions are generated from the templates below, from a seed:
- labels AC/WA/RE in a fixed mix (default 70/20/10 %), so the expected overall verdict of
  every submission holds by construction; both the service and the bare run are checked
  against it, and against each other test by test;
- every one unique (identifier names, fast-I/O line, indentation, extra headers, a tag
  comment), so nothing comes from a compile cache;
- C++ the way models write contest code: ``using namespace std``, half of the submissions
  ``#include <bits/stdc++.h>``, the other half individual standard headers.
The tag comment also carries the round and the target (bare/local/docker), so a content
keyed cache, whatever its scope, never sees the same source twice; behaviour is identical.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from string import Template

# problem id -> (checker name, individual C++ headers the AC/WA bodies need,
#                {placeholder: candidate names}, python AC, python WA, cpp AC, cpp WA).
# Bodies use $-placeholders (string.Template): C++ and Python never use '$' here.
# Each WA is a plausible logic bug that fails at least one of the first ten tests
# (checked by tests/bench/test_judge_workload.py against the real test data).
PROBLEMS: dict[str, tuple] = {
    "sum-two": (
        "integers", ["iostream"],
        {"a": ["a", "x", "lhs", "first"], "b": ["b", "y", "rhs", "second"]},
        "$a, $b = map(int, input().split())\nprint($a + $b)\n",
        "$a, $b = map(int, input().split())\nprint($a - $b)\n",
        "long long $a, $b;\ncin >> $a >> $b;\ncout << $a + $b << '\\n';\n",
        # reads as int (fine: |a + b| <= 2e9 fits) but prints a difference
        "int $a, $b;\ncin >> $a >> $b;\ncout << $a - $b << '\\n';\n",
    ),
    "count-words": (
        "integers", ["iostream", "sstream", "string"],
        {"line": ["line", "text", "str_in"], "w": ["w", "word", "tok"], "n": ["n", "cnt", "total"]},
        "$line = input()\nprint(len($line.split()))\n",
        # counts single spaces: wrong on runs of spaces
        "$line = input().strip()\nprint($line.count(' ') + 1)\n",
        "string $line, $w;\ngetline(cin, $line);\nistringstream in($line);\nint $n = 0;\n"
        "while (in >> $w) $n++;\ncout << $n << '\\n';\n",
        "string $line;\ngetline(cin, $line);\nint $n = 1;\nfor (char c : $line) if (c == ' ') $n++;\n"
        "cout << $n << '\\n';\n",
    ),
    "reverse-string": (
        "tokens", ["iostream", "string", "algorithm"],
        {"s": ["s", "word", "str_in", "t"]},
        "$s = input().strip()\nprint($s[::-1])\n",
        "$s = input().strip()\nprint($s[:0:-1])\n",  # drops the first letter
        "string $s;\ncin >> $s;\nreverse($s.begin(), $s.end());\ncout << $s << '\\n';\n",
        "string $s;\ncin >> $s;\nreverse($s.begin() + 1, $s.end());\ncout << $s << '\\n';\n",
    ),
    "fizzbuzz": (
        "tokens", ["iostream"],
        {"n": ["n", "limit", "m"], "i": ["i", "k", "j"]},
        "$n = int(input())\nfor $i in range(1, $n + 1):\n"
        "    if $i % 15 == 0:\n        print('FizzBuzz')\n    elif $i % 3 == 0:\n        print('Fizz')\n"
        "    elif $i % 5 == 0:\n        print('Buzz')\n    else:\n        print($i)\n",
        # checks 3 before 15: never prints FizzBuzz
        "$n = int(input())\nfor $i in range(1, $n + 1):\n"
        "    if $i % 3 == 0:\n        print('Fizz')\n    elif $i % 5 == 0:\n        print('Buzz')\n"
        "    elif $i % 15 == 0:\n        print('FizzBuzz')\n    else:\n        print($i)\n",
        "int $n;\ncin >> $n;\nfor (int $i = 1; $i <= $n; $i++) {\n"
        "    if ($i % 15 == 0) cout << \"FizzBuzz\\n\";\n    else if ($i % 3 == 0) cout << \"Fizz\\n\";\n"
        "    else if ($i % 5 == 0) cout << \"Buzz\\n\";\n    else cout << $i << '\\n';\n}\n",
        "int $n;\ncin >> $n;\nfor (int $i = 1; $i <= $n; $i++) {\n"
        "    if ($i % 3 == 0) cout << \"Fizz\\n\";\n    else if ($i % 5 == 0) cout << \"Buzz\\n\";\n"
        "    else if ($i % 15 == 0) cout << \"FizzBuzz\\n\";\n    else cout << $i << '\\n';\n}\n",
    ),
    "sort-numbers": (
        "integers", ["iostream", "vector", "algorithm"],
        {"n": ["n", "cnt", "len_"], "a": ["a", "arr", "nums", "v"]},
        "$n = int(input())\n$a = sorted(map(int, input().split()))\nprint(*$a)\n",
        "$n = int(input())\n$a = sorted(input().split())\nprint(*$a)\n",  # sorts as strings
        "int $n;\ncin >> $n;\nvector<long long> $a($n);\nfor (auto &x : $a) cin >> x;\n"
        "sort($a.begin(), $a.end());\nfor (int i = 0; i < $n; i++) cout << $a[i] << (i + 1 == $n ? '\\n' : ' ');\n",
        "int $n;\ncin >> $n;\nvector<long long> $a($n);\nfor (auto &x : $a) cin >> x;\n"
        "sort($a.rbegin(), $a.rend());\nfor (int i = 0; i < $n; i++) cout << $a[i] << (i + 1 == $n ? '\\n' : ' ');\n",
    ),
    "triangle-type": (
        "tokens", ["iostream", "algorithm"],
        {"s": ["s", "side", "e"]},
        "$s = sorted(map(int, input().split()))\nif $s[0] + $s[1] <= $s[2]:\n    print('invalid')\n"
        "elif $s[0] == $s[2]:\n    print('equilateral')\nelif $s[0] == $s[1] or $s[1] == $s[2]:\n"
        "    print('isosceles')\nelse:\n    print('scalene')\n",
        # a degenerate triangle (a + b == c) counted as valid
        "$s = sorted(map(int, input().split()))\nif $s[0] + $s[1] < $s[2]:\n    print('invalid')\n"
        "elif $s[0] == $s[2]:\n    print('equilateral')\nelif $s[0] == $s[1] or $s[1] == $s[2]:\n"
        "    print('isosceles')\nelse:\n    print('scalene')\n",
        "long long $s[3];\ncin >> $s[0] >> $s[1] >> $s[2];\nsort($s, $s + 3);\n"
        "if ($s[0] + $s[1] <= $s[2]) cout << \"invalid\\n\";\nelse if ($s[0] == $s[2]) cout << \"equilateral\\n\";\n"
        "else if ($s[0] == $s[1] || $s[1] == $s[2]) cout << \"isosceles\\n\";\nelse cout << \"scalene\\n\";\n",
        "long long $s[3];\ncin >> $s[0] >> $s[1] >> $s[2];\nsort($s, $s + 3);\n"
        "if ($s[0] + $s[1] < $s[2]) cout << \"invalid\\n\";\nelse if ($s[0] == $s[2]) cout << \"equilateral\\n\";\n"
        "else if ($s[0] == $s[1] || $s[1] == $s[2]) cout << \"isosceles\\n\";\nelse cout << \"scalene\\n\";\n",
    ),
    "multiplication-table": (
        "lines", ["iostream"],
        {"n": ["n", "base", "num"], "i": ["i", "k", "j"]},
        "$n = int(input())\nfor $i in range(1, 11):\n    print(f'{$n} x {$i} = {$n * $i}')\n",
        "$n = int(input())\nfor $i in range(1, 10):\n    print(f'{$n} x {$i} = {$n * $i}')\n",
        "long long $n;\ncin >> $n;\nfor (int $i = 1; $i <= 10; $i++) cout << $n << \" x \" << $i << \" = \" << $n * $i << '\\n';\n",
        "long long $n;\ncin >> $n;\nfor (int $i = 1; $i < 10; $i++) cout << $n << \" x \" << $i << \" = \" << $n * $i << '\\n';\n",
    ),
}
EXTRA_HEADERS = ["vector", "string", "algorithm", "cstdio", "cmath", "map", "set"]
LABELS = ("AC", "WA", "RE")


@dataclass(frozen=True)
class Submission:
    index: int
    language: str  # python | cpp
    problem: str
    label: str  # the overall verdict it must get: AC, WA or RE
    bits: bool  # C++ only: includes <bits/stdc++.h>
    code: str  # without the tag comment: see tagged()

    def tagged(self, round_no: int, target: str) -> str:
        """The source with a tag comment naming the round and target (see module doc)."""
        mark = "#" if self.language == "python" else "//"
        return f"{mark} submission {self.index} round {round_no} {target}\n{self.code}"


def label_mix(n: int, wa_pct: int, re_pct: int, rng: random.Random) -> list[str]:
    n_wa, n_re = round(n * wa_pct / 100), round(n * re_pct / 100)
    labels = ["WA"] * n_wa + ["RE"] * n_re + ["AC"] * (n - n_wa - n_re)
    rng.shuffle(labels)
    return labels


def _names(choices: dict[str, list[str]], rng: random.Random) -> dict[str, str]:
    return {k: rng.choice(v) for k, v in choices.items()}


def _indent(body: str, unit: str) -> str:
    """Re-indent a 4-space-indented body with ``unit`` per level."""
    out = []
    for line in body.splitlines():
        stripped = line.lstrip(" ")
        out.append(unit * ((len(line) - len(stripped)) // 4) + stripped)
    return "\n".join(out) + "\n"


def python_source(problem: str, label: str, rng: random.Random) -> str:
    _, _, names, ac, wa, _, _ = PROBLEMS[problem]
    body = Template(wa if label == "WA" else ac).substitute(_names(names, rng))
    body = _indent(body, rng.choice(["    ", "  "]))
    style = rng.randrange(2)
    if label == "RE":
        # An uncaught exception: before any output (style 0) or after all of it (style 1);
        # either way a non-zero exit, so every test is RE.
        if style == 0:
            body = "buf = [0] * 3\nbuf[3] = 1\n" + body
        else:
            body += "raise SystemExit(1)\n"
    if rng.random() < 0.5:  # a main() wrapper, as models often write
        lines = body.splitlines()
        body = "def main():\n" + "".join(f"    {ln}\n" for ln in lines) + "\n\nmain()\n"
    return body


def cpp_source(problem: str, label: str, bits: bool, rng: random.Random) -> str:
    _, headers, names, _, _, ac, wa = PROBLEMS[problem]
    body = Template(wa if label == "WA" else ac).substitute(_names(names, rng))
    pre, ret = "", "0"
    if label == "RE":
        if rng.randrange(2) == 0:  # std::out_of_range -> std::terminate -> SIGABRT
            pre = "vector<int> buf(3);\nbuf.at(3) = 1;\n"
            headers = [*headers, "vector"]
        else:
            ret = "1"  # a non-zero exit status after correct output
    if rng.random() < 0.5:
        pre = "ios::sync_with_stdio(false);\ncin.tie(nullptr);\n" + pre
    if bits:
        inc = ["bits/stdc++.h"]
    else:
        extra = rng.sample(EXTRA_HEADERS, rng.randrange(0, 3))
        inc = list(dict.fromkeys([*headers, *extra]))
    unit = rng.choice(["    ", "  "])
    main = "".join(unit + ln + "\n" for ln in _indent(pre + body + f"return {ret};\n", unit).splitlines())
    return ("".join(f"#include <{h}>\n" for h in inc) + "using namespace std;\n\n"
            + "int main() {\n" + main + "}\n")


def generate(n: int, seed: int = 1, wa_pct: int = 20, re_pct: int = 10,
             problems: list[str] | None = None) -> dict[str, list[Submission]]:
    """N Python and N C++ submissions, deterministic in ``seed``; keys python, cpp."""
    probs = problems or sorted(PROBLEMS)
    out: dict[str, list[Submission]] = {}
    for lang in ("python", "cpp"):
        rng = random.Random(f"{seed}:{lang}")
        labels = label_mix(n, wa_pct, re_pct, rng)
        bits = [i % 2 == 0 for i in range(n)]
        rng.shuffle(bits)
        subs = []
        for i in range(n):
            problem = probs[i % len(probs)]
            code = (python_source(problem, labels[i], rng) if lang == "python"
                    else cpp_source(problem, labels[i], bits[i], rng))
            subs.append(Submission(i, lang, problem, labels[i], lang == "cpp" and bits[i], code))
        out[lang] = subs
    return out


def checker_of(problem: str) -> str:
    return PROBLEMS[problem][0]
