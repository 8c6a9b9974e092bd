"""Math sets as JSON Lines: GSM8K, MATH and plain question/answer records.

- ``question``/``problem`` is the question.
- ``answer``: GSM8K's answer ends in ``#### 42``: the gold answer is what follows the
  marker, the text before it the worked solution. Otherwise the answer as given.
- no ``answer`` (MATH): the gold answer is the last ``\\boxed{...}`` of ``solution``.
"""

from __future__ import annotations

from pathlib import Path

from problem_store.importers.base import Draft, ImportFailure, Importer
from problem_store.importers.jsonl import each_record, record_id, record_stem


def last_boxed(text: str) -> str | None:
    """Content of the last \\boxed{...} (or \\fbox{...}), braces balanced; None if absent."""
    start = max(text.rfind("\\boxed"), text.rfind("\\fbox"))
    if start < 0:
        return None
    i = start + (len("\\boxed") if text.startswith("\\boxed", start) else len("\\fbox"))
    while i < len(text) and text[i] == " ":
        i += 1
    if i < len(text) and text[i] != "{":  # "\boxed 5": up to the next space or '$'
        j = i
        while j < len(text) and text[j] not in " $\n":
            j += 1
        return text[i:j] or None
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[i + 1:j]
    return None


def import_math(path: Path) -> Importer:
    return each_record(path, _math)


def _math(rec: dict, path: Path, lineno: int) -> Draft:
    question = rec.get("question") or rec.get("problem")
    if not isinstance(question, str) or not question.strip():
        raise ImportFailure("no question: expected a 'question' or 'problem' string", path, lineno)
    raw_answer = rec.get("answer", rec.get("final_answer"))
    solution = rec.get("solution")
    if raw_answer is not None and not isinstance(raw_answer, (str, int, float)):
        raise ImportFailure(f"answer must be a string or number, got {type(raw_answer).__name__}", path, lineno)
    answer = None if raw_answer is None else str(raw_answer)
    if answer is not None and "####" in answer:
        worked, _, final = answer.rpartition("####")
        answer = final.strip().replace(",", "") if final.strip().replace(",", "").lstrip("-").replace(".", "").isdigit() \
            else final.strip()
        solution = solution or worked.strip()
    elif answer is None and isinstance(solution, str):
        answer = last_boxed(solution)
        if answer is None:
            raise ImportFailure("no answer field and no \\boxed{...} in the solution", path, lineno)
    if answer is None or not answer.strip():
        raise ImportFailure("no answer: expected 'answer' or a 'solution' with \\boxed{...}", path, lineno)
    fields: dict = {"id": record_id(rec, ("id", "unique_id", "task_id"), path, lineno), "kind": "math",
                    "question": question, "answer": answer.strip(), "source": record_stem(path)}
    if isinstance(solution, str) and solution.strip():
        fields["solution"] = solution
    if rec.get("level"):
        fields["difficulty"] = str(rec["level"])
    if rec.get("type"):
        fields["tags"] = [str(rec["type"])]
    if rec.get("answer_form") is not None:
        fields["answer_form"] = rec["answer_form"]  # validated with the manifest
    return Draft(fields=fields, origin=path, line=lineno)
