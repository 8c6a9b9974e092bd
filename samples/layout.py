"""Where the sample problems live and how to read their metadata."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent
STDIO = ROOT / "stdio"
# The stdio set's shared checker headers (the own format's SET/include/, docs/problem-format.md).
STDIO_INCLUDE = STDIO / "include"
FUNCTION = ROOT / "function"
MATH = ROOT / "math"
VERDICTS = ("AC", "WA", "PE", "TLE", "MLE", "RE", "CE")


@dataclass(frozen=True)
class SampleProblem:
    """One problem directory plus its parsed problem.yaml and solutions/expected.yaml."""

    path: Path
    meta: dict
    expected: dict[str, str]

    @property
    def id(self) -> str:
        return self.meta.get("id", self.path.name)

    @property
    def kind(self) -> str:
        return self.meta["kind"]


def load(path: Path) -> SampleProblem:
    meta = yaml.safe_load((path / "problem.yaml").read_text())
    exp_file = path / "solutions" / "expected.yaml"
    expected = yaml.safe_load(exp_file.read_text()) if exp_file.exists() else {}
    for name, verdict in expected.items():
        if verdict not in VERDICTS:
            raise ValueError(f"{path}: expected.yaml gives {name!r} an unknown verdict {verdict!r}")
        if not (path / "solutions" / name).exists():
            raise ValueError(f"{path}: expected.yaml names a missing file {name!r}")
    return SampleProblem(path=path, meta=meta, expected=expected)


def problems(kind: str | None = None, only: list[str] | None = None) -> list[SampleProblem]:
    """Every sample problem (stdio then function), sorted by id; ``only`` filters by id."""
    dirs: list[Path] = []
    for base, k in ((STDIO, "stdio"), (FUNCTION, "function")):
        if kind in (None, k) and base.is_dir():
            dirs.extend(sorted(p for p in base.iterdir() if (p / "problem.yaml").exists()))
    out = [load(d) for d in dirs]
    if only:
        missing = set(only) - {p.id for p in out}
        if missing:
            raise SystemExit(f"unknown problem id(s): {', '.join(sorted(missing))}")
        out = [p for p in out if p.id in only]
    return out


def category(p: SampleProblem) -> str:
    """beginner / intermediate / special: special = a custom checker or float tolerance.

    The 30/20/10 design of the stdio set and the stratified train/heldout split use this.
    """
    if p.kind == "stdio":
        checker = p.meta.get("checker") or {}
        if checker.get("type") == "custom" or checker.get("name") == "floats":
            return "special"
    return str(p.meta.get("difficulty", "unknown"))
