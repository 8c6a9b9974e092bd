"""YAML loading that remembers which line each key and list item sits on.

Validation errors from the manifest models come with a field path (``limits.time_limit_s``);
with this map they can name the line of problem.yaml at fault.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from problem_store.importers.base import ImportFailure


def load_yaml_with_lines(text: str, path: Path) -> tuple[object, dict[tuple, int]]:
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.load(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(e, "problem", None) or str(e)
        raise ImportFailure(f"invalid YAML: {problem}", path, line) from None
    lines: dict[tuple, int] = {}

    def walk(n: yaml.Node, at: tuple) -> None:
        if isinstance(n, yaml.MappingNode):
            for k, v in n.value:
                key = at + (k.value,)
                lines[key] = k.start_mark.line + 1
                walk(v, key)
        elif isinstance(n, yaml.SequenceNode):
            for i, item in enumerate(n.value):
                lines[at + (i,)] = item.start_mark.line + 1
                walk(item, at + (i,))

    if node is not None:
        walk(node, ())
    return data, lines
