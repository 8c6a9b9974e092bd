"""The whole labelled set (tests/data/math_cases.jsonl) through the judge.

Labels were written by hand as the truth under the documented policies; this test
reports every disagreement and fails below 97% accuracy.
"""

from __future__ import annotations

import collections
import json
from pathlib import Path

from verifier.math import judge

CASES = Path(__file__).resolve().parents[1] / "data" / "math_cases.jsonl"
REQUIRED_CATEGORIES = {
    "extraction", "latex_frac", "sqrt", "constants", "scientific", "percent", "degrees",
    "mixed_number", "thousands", "units", "sets", "tuples", "intervals", "matrices",
    "equations", "inequalities", "multiple_answers", "tolerance", "symbolic", "text", "garbage",
}


def _load() -> list[dict]:
    return [json.loads(line) for line in CASES.read_text().splitlines() if line.strip()]


def test_labelled_set_is_well_formed_and_covers_every_category():
    cases = _load()
    assert len(cases) >= 300
    for c in cases:
        assert set(c) == {"gold", "prediction", "expected", "category"}, c
        assert isinstance(c["expected"], bool)
    by_cat = collections.defaultdict(set)
    for c in cases:
        by_cat[c["category"]].add(c["expected"])
    assert REQUIRED_CATEGORIES <= set(by_cat)
    for cat, labels in by_cat.items():
        assert labels == {True, False}, f"{cat} needs positives and hard negatives"
    keys = [(c["gold"], c["prediction"]) for c in cases]
    assert len(keys) == len(set(keys)), "duplicate cases"


def test_judge_accuracy_on_labelled_set():
    cases = _load()
    failures = []
    for c in cases:
        v = judge(c["gold"], c["prediction"], timeout_s=10.0)
        if v.error is not None or v.equivalent != c["expected"]:
            failures.append(f"[{c['category']}] gold={c['gold']!r} pred={c['prediction'][:80]!r} "
                            f"expected={c['expected']} got={v.equivalent} reason={v.reason!r} "
                            f"error={v.error!r}")
    accuracy = 1 - len(failures) / len(cases)
    print(f"\naccuracy {accuracy:.4f} on {len(cases)} cases; {len(failures)} failures")
    for f in failures:
        print("  FAIL", f)
    assert accuracy >= 0.97, "\n".join(failures)
