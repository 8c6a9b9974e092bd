"""Prompts in, programs out: render problems as chat prompts and extract the answer.

Rendering: ``build_messages`` turns a manifest (stdio, function or math problem) into
chat messages with the statement, the language and the I/O contract; ``render_prompt``
passes them through a chat template (a tokenizer's ``apply_chat_template`` via
``hf_chat_template``, or any ``messages -> str`` callable, which keeps tests free of
tokenizer files).

Extraction (``extract_code``): the prompt asks for exactly one fenced block, but models
often write a draft or an explanation first, so the **last** fenced block tagged with the
requested language wins; failing that the last untagged block; failing that the whole
completion. A final fence left open (the completion hit max_new_tokens) counts as a block
running to the end. Blocks tagged with another language are never chosen: I/O examples
are usually fenced as ``text``, and a Java answer to a Python prompt is wrong anyway.

Math (``extract_boxed``): the prompt asks for the final answer in ``\\boxed{}``; the last
box wins, braces balanced.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from problem_store.manifest import FunctionProblem, MathProblem, StdioProblem

Message = dict[str, str]
ChatTemplate = Callable[[list[Message]], str]

# Fence info strings accepted for each sandbox language (lower-case, first word).
LANGUAGE_TAGS: dict[str, frozenset[str]] = {
    "python": frozenset({"python", "py", "python3", "py3"}),
    "cpp": frozenset({"cpp", "c++", "cxx", "cc", "hpp"}),
    "c": frozenset({"c", "h"}),
}
LANGUAGE_NAMES = {"python": "Python 3", "cpp": "C++17", "c": "C11"}


class PromptOptions(BaseModel):
    """How problems are turned into prompts (config section ``data.prompt``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    system_prompt: str | None = Field(
        None, description="System message (None: none; the chat template may add its own default)."
    )
    include_title: bool = Field(True, description="Start the statement with the problem title.")
    include_limits: bool = Field(True, description="State the time and memory limits (stdio problems).")
    think_step_by_step: bool = Field(False, description="Ask for brief reasoning before the final answer.")
    extra_instructions: str = Field("", description="Text appended to every user message.")


@dataclass(frozen=True)
class ExtractedCode:
    code: str
    from_block: bool  # False: no usable fenced block, the whole completion was taken
    tag: str | None = None  # fence info string of the chosen block ('' for untagged)


def _fence(language: str) -> str:
    return "cpp" if language == "cpp" else language


def _stdio_text(p: "StdioProblem", language: str, o: PromptOptions) -> str:
    parts = []
    if o.include_title and p.title:
        parts.append(f"# {p.title}")
    parts.append(p.statement.strip())
    if o.include_limits:
        parts.append(f"Time limit: {p.limits.time_limit_s:g} s per test. Memory limit: {p.limits.memory_mb} MB.")
    name = LANGUAGE_NAMES.get(language, language)
    parts.append(
        f"Write a complete {name} program that reads the input from standard input and writes the "
        "answer to standard output. Do not print anything else. Put the whole program in a single "
        f"fenced code block: ```{_fence(language)} ... ```."
    )
    return "\n\n".join(x for x in parts if x)


def _function_text(p: "FunctionProblem", language: str, o: PromptOptions) -> str:
    parts = []
    if o.include_title and p.title:
        parts.append(f"# {p.title}")
    if p.statement.strip():
        parts.append(p.statement.strip())
    if p.prompt.strip():
        parts.append(f"```python\n{p.prompt.rstrip()}\n```")
    parts.append(
        f"Write a Python 3 function named `{p.entry_point}` that solves this task. Include any imports "
        "and helper functions it needs, and no test code or input reading. Put the whole code in a "
        "single fenced code block: ```python ... ```."
    )
    return "\n\n".join(parts)


def _math_text(p: "MathProblem", language: str, o: PromptOptions) -> str:
    return f"{p.question.strip()}\n\nGive your final answer in the form \\boxed{{answer}}."


_RENDERERS: dict[str, Callable[[Any, str, PromptOptions], str]] = {
    "stdio": _stdio_text,
    "function": _function_text,
    "math": _math_text,
}


def build_messages(problem: Any, language: str, options: PromptOptions = PromptOptions()) -> list[Message]:
    """Chat messages (system optional, one user turn) asking for a solution of ``problem``."""
    kind = getattr(problem, "kind", None)
    if kind not in _RENDERERS:
        raise ValueError(f"cannot render problem kind {kind!r}; expected one of {sorted(_RENDERERS)}")
    if kind == "function" and language != "python":
        raise ValueError(f"function problem {problem.id!r} is Python-only, asked for language {language!r}")
    text = _RENDERERS[kind](problem, language, options)
    if options.think_step_by_step:
        text += "\n\nThink through the problem briefly before giving the final answer."
    if options.extra_instructions:
        text += "\n\n" + options.extra_instructions
    messages: list[Message] = []
    if options.system_prompt:
        messages.append({"role": "system", "content": options.system_prompt})
    messages.append({"role": "user", "content": text})
    return messages


def render_prompt(problem: Any, language: str, chat_template: ChatTemplate, options: PromptOptions = PromptOptions()) -> str:
    """The prompt text the generator receives: messages through the chat template."""
    return chat_template(build_messages(problem, language, options))


def hf_chat_template(tokenizer: Any) -> ChatTemplate:
    """A HuggingFace tokenizer's template, ending with the assistant turn opened."""

    def render(messages: list[Message]) -> str:
        return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)

    return render


_BLOCK_RE = re.compile(r"```([^\n`]*)\n(.*?)```", re.DOTALL)
_OPEN_RE = re.compile(r"```([^\n`]*)\n(.*)\Z", re.DOTALL)


def _blocks(text: str) -> list[tuple[str, str]]:
    """(tag, body) of every fenced block, including a trailing unclosed one."""
    out: list[tuple[str, str]] = []
    end = 0
    for m in _BLOCK_RE.finditer(text):
        out.append((m.group(1).strip().split(" ")[0].lower() if m.group(1).strip() else "", m.group(2)))
        end = m.end()
    tail = _OPEN_RE.search(text, end)
    if tail:
        tag = tail.group(1).strip()
        out.append((tag.split(" ")[0].lower() if tag else "", tail.group(2)))
    return out


def extract_code(completion: str, language: str) -> ExtractedCode:
    """The program in a completion: last block tagged ``language``, else last untagged, else all."""
    tags = LANGUAGE_TAGS.get(language, frozenset({language.lower()}))
    blocks = _blocks(completion)
    for wanted in (lambda t: t in tags, lambda t: t == ""):
        chosen = [(t, b) for t, b in blocks if wanted(t)]
        if chosen:
            tag, body = chosen[-1]
            return ExtractedCode(code=body.strip("\n") + "\n", from_block=True, tag=tag)
    return ExtractedCode(code=completion.strip() + "\n" if completion.strip() else "", from_block=False)


def extract_boxed(text: str) -> str | None:
    """Content of the last ``\\boxed{...}`` (or ``\\fbox{...}``), nested braces balanced."""
    best: str | None = None
    for m in re.finditer(r"\\(?:boxed|fbox)\s*\{", text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
            i += 1
        if depth == 0:
            best = text[m.end(): i - 1].strip()
    return best
