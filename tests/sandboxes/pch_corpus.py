"""A generated corpus of C/C++ programs for the precompiled-header oracle, and the reference.

Each program is a *prefix* (what comes before and around the first include: macros,
pragmas, comments, include orders) joined with a *body*. The probe body prints facts that
a wrongly applied PCH would change (NDEBUG turns assert off, _GLIBCXX_DEBUG turns an
out-of-range index into an abort, ONLINE_JUDGE, the A+B sum), so the reference (plain g++
in a bare subprocess, no PCH) and the judged build must agree on compile success, warning
class, exit status and output.
"""

from __future__ import annotations

import os
import subprocess
import tempfile

from sandboxes.languages import LANGUAGES

BITS = "#include <bits/stdc++.h>\n"

CPP_PREFIXES = {
    "bits": BITS + "using namespace std;\n",
    "bits-nospace": "#include<bits/stdc++.h>\nusing namespace std;\n",
    "bits-comments": "// solution\n/* by a model\n */\n" + BITS,
    "bits-trailing-comment": "#include <bits/stdc++.h> // everything\n",
    "bits-twice": BITS + BITS,
    "bits-quoted": '#include "bits/stdc++.h"\n',
    "bits-digraph": "%:include <bits/stdc++.h>\n",
    "bits-bom": "\ufeff" + BITS,
    "define-before": "#define N 100005\n" + BITS,
    "ndebug-before": "#define NDEBUG\n" + BITS,
    "glibcxx-debug-before": "#define _GLIBCXX_DEBUG 1\n" + BITS,
    "undef-oj-before": "#undef ONLINE_JUDGE\n" + BITS,
    "pragma-optimize": '#pragma GCC optimize("O3,unroll-loops")\n' + BITS,
    "pragma-target": '#pragma GCC optimize("Ofast")\n#pragma GCC target("avx2,bmi,popcnt")\n' + BITS,
    "pragma-after": BITS + '#pragma GCC optimize("O3")\n',
    "define-int-after": BITS + "#define int long long\n",
    "ndebug-after": BITS + "#define NDEBUG\n#include <cassert>\n",
    "continued-comment": "// includes \\\n" + BITS + "#include <cstdio>\n",
    "if0": "#if 0\n" + BITS + "#endif\n" + BITS,
    "iostream-vector-algorithm": "#include <iostream>\n#include <vector>\n#include <algorithm>\n"
                                 "#include <cassert>\n#include <cstdio>\n",
    "vector-first": "#include <vector>\n#include <iostream>\n#include <algorithm>\n#include <cassert>\n"
                    "#include <cstdio>\n",
    "iostream-then-bits": "#include <iostream>\n" + BITS,
    "ndebug-iostream": "#define NDEBUG\n#include <iostream>\n#include <vector>\n#include <cassert>\n"
                       "#include <cstdio>\n",
}

# `int` may be `long long` (define-int-after): main is declared `signed`.
PROBE = r"""
#ifndef ONLINE_JUDGE
#define OJ 0
#else
#define OJ 1
#endif
signed main() {
    long long a = 0, b = 0;
    if (std::scanf("%lld %lld", &a, &b) != 2) return 3;
    std::printf("%lld oj=%d int=%d\n", a + b, OJ, (int)sizeof(int));
    std::vector<int> v(3, 1);
    long long s = 0;
    for (int i = 0; i < 3; i++) s += v[i];
    std::printf("sum=%lld\n", s);
    std::fflush(stdout);
    assert(a + b == 0);  /* fails unless NDEBUG: an abort */
    std::printf("after-assert\n");
    return 0;
}
"""
DEBUG_PROBE = r"""
signed main() {
    std::vector<int> v(3, 1);
    volatile int i = 3;
    long long s = v[0] + v[1] + v[2];
    std::printf("%lld\n", s);
    std::fflush(stdout);
    if (s == 3) s += v[i];  /* out of range: _GLIBCXX_DEBUG aborts */
    std::printf("no-debug\n");
    return 0;
}
"""
ERROR = "\nsigned main() { undeclared_thing(42); return 0; }\n"
WARNING = '\n#warning "a warning, not an error"\nsigned main() { std::printf("w\\n"); return 0; }\n'

C_PROGRAMS = {
    "c-aplusb": '#include <stdio.h>\n#include <stdlib.h>\n#include <math.h>\nint main(void){long a,b;'
                'if(scanf("%ld %ld",&a,&b)!=2)return 1;printf("%ld %.3f\\n",a+b,sqrt((double)(a+b)));return 0;}\n',
    "c-define-before": '#define _GNU_SOURCE\n#include <stdio.h>\n#include <math.h>\n'
                       'int main(void){printf("%.2f\\n", M_PI);return 0;}\n',
    "c-error": "#include <stdio.h>\nint main(void){ return undeclared; }\n",
    "c-warning": '#include <stdio.h>\nint main(void){ int *p = 5; printf("%d\\n", p != 0); return 0; }\n',
}


def cpp_corpus() -> dict[str, str]:
    out = {}
    for name, prefix in CPP_PREFIXES.items():
        out[f"{name}/probe"] = prefix + PROBE
    for name in ("bits", "define-before", "pragma-target", "iostream-vector-algorithm"):
        out[f"{name}/error"] = CPP_PREFIXES[name] + ERROR
    for name in ("bits", "glibcxx-debug-before", "iostream-vector-algorithm"):
        out[f"{name}/debug-probe"] = CPP_PREFIXES[name] + DEBUG_PROBE
    out["bits/warning"] = BITS + WARNING
    out["iostream-vector-algorithm/warning"] = CPP_PREFIXES["iostream-vector-algorithm"] + WARNING
    return out


def bare_compile(language: str, code: str, workdir: str) -> tuple[bool, str, str | None]:
    """The reference: the language's compile_argv in a plain subprocess, no PCH anywhere.
    Returns (compiled, log, path of the program)."""
    lang = LANGUAGES[language]
    d = tempfile.mkdtemp(dir=workdir)
    with open(os.path.join(d, lang.source_name), "w") as f:
        f.write(code)
    argv = [a.format(source=lang.source_name, output=lang.artifact_name) for a in lang.compile_argv]
    r = subprocess.run(argv, cwd=d, capture_output=True, text=True, timeout=120,
                       env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"})
    prog = os.path.join(d, lang.artifact_name)
    return r.returncode == 0, r.stdout + r.stderr, prog if r.returncode == 0 else None


def run_program(path: str, stdin: bytes = b"2 40\n") -> tuple[int, bytes]:
    r = subprocess.run([path], input=stdin, capture_output=True, timeout=20)
    return r.returncode, r.stdout


def diagnostics_class(ok: bool, log: str) -> str:
    if not ok:
        return "error"
    return "warning" if "warning:" in log else "clean"
