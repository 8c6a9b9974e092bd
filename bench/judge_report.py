"""Rows and the markdown report of bench/judge_vs_bare.py.

A row is one (round, language, target) measurement. Figures besides runs/s:
- ``aplusb_ms``: wall time of each AC test of sum-two (A+B), per run: for bare the
  subprocess as seen from the worker thread, for a backend the run's ``wall_time_s`` the
  sandbox reports (inside the sandbox: spawn to exit, not the HTTP or checker part);
- ``compile_s``: per C++ submission, the compile's wall time (bare: g++ from the worker;
  backend: ``compile.wall_time_s``), split by <bits/stdc++.h> vs individual headers;
- ``busy_s``: compile + every run's wall time; compile share = compile / busy.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time


def _row(round_no, lang, target, runs, wall) -> dict:
    return {"round": round_no, "language": lang, "target": target, "runs": runs, "wall_s": wall,
            "runs_per_s": runs / wall if wall > 0 else float("nan"),
            "aplusb_ms": [], "compile_bits": [], "compile_hdrs": [], "busy_s": 0.0}


def bare_row(round_no: int, lang: str, subs, wall: float, results) -> dict:
    row = _row(round_no, lang, "bare", sum(len(r.runs) for r in results), wall)
    for s, r in zip(subs, results):
        row["busy_s"] += r.compile_s + sum(w for _, _, w in r.runs)
        if lang == "cpp":
            row["compile_bits" if s.bits else "compile_hdrs"].append(r.compile_s)
        if s.problem == "sum-two" and s.label == "AC":
            row["aplusb_ms"] += [w * 1e3 for _, _, w in r.runs]
    return row


def service_row(round_no: int, lang: str, target: str, subs, wall: float, replies) -> dict:
    row = _row(round_no, lang, target, sum(len(r.tests) for r in replies), wall)
    for s, r in zip(subs, replies):
        comp = r.compile.wall_time_s if r.compile is not None else 0.0
        row["busy_s"] += comp + sum(t.wall_time_s for t in r.tests)
        if lang == "cpp":
            row["compile_bits" if s.bits else "compile_hdrs"].append(comp)
        if s.problem == "sum-two" and s.label == "AC":
            row["aplusb_ms"] += [t.wall_time_s * 1e3 for t in r.tests]
    return row


def _med(xs) -> float:
    xs = [x for x in xs if x == x]
    return statistics.median(xs) if xs else float("nan")


def _f(x: float, fmt: str = ".1f") -> str:
    return "-" if x != x else format(x, fmt)


def _cpu_model() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def _cpu_table(rows, rounds, langs, targets) -> list[str]:
    """Machine time per test by process role (``--cpu-split``, bench/cpu_split.py), medians of
    rounds: where the CPU of a judged test goes, and what the machine left idle."""
    from cpu_split import ROLES

    by = {(r["round"], r["language"], r["target"]): r for r in rows}
    out = ["## Machine time per test, by process (ms, median of rounds; `--cpu-split`)", "",
           "| language | target | " + " | ".join(ROLES) + " | busy total |",
           "|---|---" + "|---:" * (len(ROLES) + 1) + "|"]
    for lang in langs:
        for t in targets:
            rs = [by[(k, lang, t)]["cpu_ms"] for k in rounds if "cpu_ms" in by.get((k, lang, t), {})]
            if not rs:
                continue
            med = {role: _med([r[role] for r in rs]) for role in ROLES}
            busy = _med([sum(v for role, v in r.items() if role != "idle") for r in rs])
            out.append(f"| {lang} | {t} | " + " | ".join(_f(med[role], ".2f") for role in ROLES)
                       + f" | {_f(busy, '.2f')} |")
    out += ["", "Roles as in bench/cpu_split.py: `client` is the bench itself (HTTP client, or the bare "
            "pool's threads), `bare` the programs it ran; `other` is the rest of the machine's busy time.", ""]
    return out


def render(args, backends: list[str], rows: list[dict], mismatches: list[str],
           load_before: str, load_after: str) -> str:
    targets = ["bare", *backends]
    by = {(r["round"], r["language"], r["target"]): r for r in rows}
    rounds = sorted({r["round"] for r in rows})
    langs = [lang for lang in ("python", "cpp") if any(r["language"] == lang for r in rows)]
    out = ["# Judging through the service vs running the programs bare (`bench/judge_vs_bare.py`)", ""]
    out.append(f"Command: `{' '.join([os.path.basename(sys.executable), 'bench/judge_vs_bare.py', *sys.argv[1:]])}`  ")
    out.append(f"When: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; machine: {os.cpu_count()} cores, "
               f"{_cpu_model()}  ")
    out.append(f"Load before: `{load_before}`  ")
    out.append(f"Load after: `{load_after}`  ")
    out.append(f"Workload: seed {args.seed}, {args.n} Python + {args.n} C++ submissions "
               f"({100 - args.wa_pct - args.re_pct}/{args.wa_pct}/{args.re_pct} % AC/WA/RE, half the C++ "
               f"with <bits/stdc++.h>), {args.tests} tests each, every test run; service concurrency "
               f"{args.concurrency}; bare workers {args.workers}; {len(rounds)} round(s), targets "
               f"alternated in each.")
    out.append("")
    out.append("## Median of rounds")
    out.append("")
    head = "| language | " + " | ".join(f"{t} runs/s" for t in targets)
    head += "".join(f" | {b}/bare" for b in backends)
    if "local" in backends and "docker" in backends:
        head += " | docker/local"
    out.append(head + " |")
    out.append("|---" * (1 + len(targets) + len(backends) + (1 if "docker/local" in head else 0)) + "|")
    for lang in langs:
        med = {t: _med([by[(k, lang, t)]["runs_per_s"] for k in rounds if (k, lang, t) in by])
               for t in targets}
        line = f"| {lang} | " + " | ".join(_f(med[t]) for t in targets)
        line += "".join(f" | {_f(med[b] / med['bare'] * 100, '.0f')} %" for b in backends)
        if "docker/local" in head:
            line += f" | {_f(med['docker'] / med['local'] * 100, '.0f')} %"
        out.append(line + " |")
    out.append("")
    out.append("Ratios are of the medians. Per-run detail (medians over all rounds):")
    out.append("")
    out.append("| language | target | A+B run wall ms (median) | compile s, bits/stdc++.h | "
               "compile s, own headers | compile share of busy time |")
    out.append("|---|---|---:|---:|---:|---:|")
    for lang in langs:
        for t in targets:
            rs = [by[(k, lang, t)] for k in rounds if (k, lang, t) in by]
            ab = _med([x for r in rs for x in r["aplusb_ms"]])
            cb = _med([x for r in rs for x in r["compile_bits"]])
            ch = _med([x for r in rs for x in r["compile_hdrs"]])
            comp = sum(sum(r["compile_bits"]) + sum(r["compile_hdrs"]) for r in rs)
            busy = sum(r["busy_s"] for r in rs)
            share = comp / busy * 100 if lang == "cpp" and busy else float("nan")
            out.append(f"| {lang} | {t} | {_f(ab, '.2f')} | {_f(cb, '.2f')} | {_f(ch, '.2f')} | "
                       f"{_f(share, '.0f')}{' %' if share == share else ''} |")
    out.append("")
    if any("cpu_ms" in r for r in rows):
        out += _cpu_table(rows, rounds, langs, targets)
    out.append("## Every round")
    out.append("")
    out.append("| round | language | target | runs | wall s | runs/s | vs bare (same round) |")
    out.append("|---:|---|---|---:|---:|---:|---:|")
    for k in rounds:
        for lang in langs:
            base = by.get((k, lang, "bare"))
            for t in targets:
                r = by.get((k, lang, t))
                if r is None:
                    continue
                ratio = r["runs_per_s"] / base["runs_per_s"] * 100 if base else float("nan")
                out.append(f"| {k} | {lang} | {t} | {r['runs']} | {r['wall_s']:.2f} | "
                           f"{r['runs_per_s']:.1f} | {_f(ratio, '.0f')} % |")
    out.append("")
    out.append(f"Verdict mismatches (service vs bare test by test, and overall vs the generated "
               f"label, on every backend and round): **{len(mismatches)}**")
    out.extend(f"- {m}" for m in mismatches[:20])
    return "\n".join(out) + "\n"
