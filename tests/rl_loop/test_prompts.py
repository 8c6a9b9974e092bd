"""Prompt rendering and answer extraction."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from problem_store.manifest import FunctionProblem, Limits, MathProblem, StdioProblem, parse_problem
from rl_loop.prompts import PromptOptions, build_messages, extract_boxed, extract_code, hf_chat_template, render_prompt

LINK = "blob://sha256/" + "a" * 64


def stdio():
    return StdioProblem(
        id="aplusb", title="A+B", statement="Read two integers and print their sum.",
        limits=Limits(time_limit_s=1.5, memory_mb=128),
        tests=({"name": "01", "input": LINK, "answer": LINK},),
    )


def function():
    return FunctionProblem(
        id="add", prompt='def add(a, b):\n    """Return a + b."""\n', entry_point="add",
        tests=({"name": "t", "code": LINK},),
    )


def fake_template(messages):
    """A stand-in chat template: role tags around contents, assistant turn opened."""
    return "".join(f"<|{m['role']}|>{m['content']}<|end|>" for m in messages) + "<|assistant|>"

REPO = Path(__file__).resolve().parents[2]


def test_stdio_prompt_has_statement_language_io_and_limits():
    msgs = build_messages(stdio(), "cpp")
    assert [m["role"] for m in msgs] == ["user"]
    text = msgs[0]["content"]
    for needle in ("# A+B", "Read two integers", "C++17", "standard input", "standard output",
                   "```cpp", "1.5 s", "128 MB"):
        assert needle in text, needle
    text = build_messages(stdio(), "python", PromptOptions(include_limits=False, include_title=False))[0]["content"]
    assert "Python 3" in text and "```python" in text and "128 MB" not in text and "# A+B" not in text


def test_function_prompt_shows_signature_and_entry_point():
    text = build_messages(function(), "python")[0]["content"]
    assert 'def add(a, b):\n    """Return a + b."""' in text and "`add`" in text
    with pytest.raises(ValueError, match="Python-only"):
        build_messages(function(), "cpp")


def test_math_prompt_asks_for_boxed():
    p = MathProblem(id="m1", question="What is 2+3?", answer="5")
    assert "\\boxed{" in build_messages(p, "python")[0]["content"]


def test_system_prompt_and_template():
    opts = PromptOptions(system_prompt="You are terse.", think_step_by_step=True, extra_instructions="No comments.")
    out = render_prompt(stdio(), "python", fake_template, opts)
    assert out.startswith("<|system|>You are terse.<|end|><|user|># A+B")
    assert "Think through" in out and out.endswith("No comments.<|end|><|assistant|>")


def test_hf_chat_template_calls_apply_chat_template():
    calls = []

    class Tok:
        def apply_chat_template(self, messages, tokenize, add_generation_prompt):
            calls.append((tokenize, add_generation_prompt))
            return "T:" + messages[-1]["content"][:3]

    assert render_prompt(stdio(), "python", hf_chat_template(Tok())) == "T:# A"
    assert calls == [(False, True)]


def test_unknown_kind_is_an_error():
    with pytest.raises(ValueError, match="cannot render"):
        build_messages(object(), "python")


def test_manifest_round_trip_renders():
    p = parse_problem(stdio().model_dump(mode="json"))
    assert "Read two integers" in build_messages(p, "python")[0]["content"]


# ------------------------------------------------------------------ extraction
@pytest.mark.parametrize(
    "completion, language, code, from_block",
    [
        # last block of the language wins over a draft
        ("Draft:\n```python\nprint(1)\n```\nFinal:\n```python\nprint(2)\n```\n", "python", "print(2)\n", True),
        # an I/O example fenced as text is never the program
        ("```python\nprint(input())\n```\nExample:\n```text\n1 2\n```", "python", "print(input())\n", True),
        # aliases
        ("```py\nx=1\n```", "python", "x=1\n", True),
        ("```c++\nint main(){}\n```", "cpp", "int main(){}\n", True),
        # untagged block when none is tagged
        ("Here:\n```\nprint(3)\n```", "python", "print(3)\n", True),
        # tagged beats a later untagged block
        ("```python\na=1\n```\n```\n3 4\n```", "python", "a=1\n", True),
        # truncated completion: unclosed final fence runs to the end
        ("```python\nfor i in range(3):\n    print(i", "python", "for i in range(3):\n    print(i\n", True),
        # no block at all: whole text
        ("print(5)", "python", "print(5)\n", False),
        # only another language's block: whole text (a Java answer to a Python prompt fails anyway)
        ("```java\nclass A{}\n```", "python", "```java\nclass A{}\n```\n", False),
        ("", "python", "", False),
    ],
)
def test_extract_code(completion, language, code, from_block):
    got = extract_code(completion, language)
    assert (got.code, got.from_block) == (code, from_block)


@pytest.mark.parametrize(
    "text, answer",
    [
        ("so \\boxed{5}.", "5"),
        ("first \\boxed{4}, no wait \\boxed{\\frac{1}{2}}", "\\frac{1}{2}"),
        ("\\fbox{x^{2}}", "x^{2}"),
        ("no box here", None),
        ("unbalanced \\boxed{1", None),
    ],
)
def test_extract_boxed(text, answer):
    assert extract_boxed(text) == answer


def test_explicit_problem_ids_cannot_bypass_the_split(tmp_path):
    """A held-out id named in data.problem_ids of a training run is an error, not a leak."""
    import subprocess
    import sys

    from rl_loop.config import DataConfig
    from rl_loop.rollouts import load_prompts

    src = tmp_path / "set"
    shutil.copytree(REPO / "samples" / "stdio" / "sum-two", src / "sum-two")
    heldout = src / "sum-two-heldout"
    shutil.copytree(src / "sum-two", heldout)
    yml = (heldout / "problem.yaml").read_text()
    assert "split: train" in yml and "id: sum-two" in yml
    (heldout / "problem.yaml").write_text(yml.replace("split: train", "split: heldout")
                                          .replace("id: sum-two", "id: sum-two-heldout"))
    store = tmp_path / "store"
    subprocess.run([sys.executable, "-m", "problem_store.cli", "--store", str(store), "upload", "--no-progress",
                    str(src)], cwd=REPO, check=True, capture_output=True)

    class Tok:
        def apply_chat_template(self, messages, tokenize=False, add_generation_prompt=True):
            return "".join(m["content"] for m in messages)

        def __call__(self, text, add_special_tokens=False):
            return {"input_ids": [1] * 8}

    ok, _ = load_prompts(DataConfig(store_uri=str(store), problem_ids=["sum-two"]), Tok(), 4096)
    assert list(ok) == ["sum-two"]
    with pytest.raises(ValueError, match=f"{heldout.name} is a 'heldout'"):
        load_prompts(DataConfig(store_uri=str(store), problem_ids=["sum-two", heldout.name]), Tok(), 4096)
    both, _ = load_prompts(DataConfig(store_uri=str(store), problem_ids=[heldout.name], splits=["heldout"]),
                           Tok(), 4096)
    assert list(both) == [heldout.name]
