"""YAML loading with limits, remembering which line each key and list item sits on.

Limits: problem.yaml is read by a safe loader (no Python objects) that also refuses

- documents over ``MAX_YAML_BYTES`` (1 MiB; a problem.yaml is a few hundred bytes),
- more than ``MAX_ALIASES`` aliases (``*name``), and recursive ones,
- more than ``MAX_NODES`` nodes once every alias is expanded.

Aliases cost nothing to parse but multiply on expansion: a 1 KB "billion laughs"
document of nine nested anchors expands to 10^9 nodes, and everything downstream (the
line map below, manifest validation, JSON) expands it. Counting the expanded size on the
node graph, memoised per node, costs one step per distinct node, so the check itself
stays small.

Validation errors from the manifest models come with a field path (``limits.time_limit_s``);
with the line map they can name the line of problem.yaml at fault.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from problem_store.importers.base import ImportFailure

MAX_YAML_BYTES = 1 << 20
MAX_ALIASES = 100
MAX_NODES = 100_000


class _Refused(Exception):
    def __init__(self, message: str, line: int | None):
        super().__init__(message)
        self.message, self.line = message, line


class LimitedSafeLoader(yaml.SafeLoader):
    """SafeLoader that counts aliases as it composes and stops past ``MAX_ALIASES``."""

    def __init__(self, stream: str):
        super().__init__(stream)
        self.aliases = 0

    def compose_node(self, parent, index):  # noqa: ANN001 - PyYAML's signature
        if self.check_event(yaml.AliasEvent):
            self.aliases += 1
            if self.aliases > MAX_ALIASES:
                mark = self.peek_event().start_mark
                raise _Refused(f"more than {MAX_ALIASES} YAML aliases (*name): refused", mark.line + 1)
        return super().compose_node(parent, index)


def _check_expanded_size(root: yaml.Node) -> None:
    """Refuse recursive aliases and documents over MAX_NODES nodes once expanded."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()

    def size(n: yaml.Node) -> int:
        key = id(n)
        if key in sizes:
            return sizes[key]
        if key in open_nodes:
            raise _Refused("a YAML alias refers to a node that contains it (recursive): refused",
                           n.start_mark.line + 1)
        open_nodes.add(key)
        total = 1
        if isinstance(n, yaml.MappingNode):
            children = [c for pair in n.value for c in pair]
        elif isinstance(n, yaml.SequenceNode):
            children = list(n.value)
        else:
            children = []
        for c in children:
            total += size(c)
            if total > MAX_NODES:
                raise _Refused(f"YAML document expands to more than {MAX_NODES} nodes (aliases multiply "
                               "on expansion): refused", n.start_mark.line + 1)
        open_nodes.discard(key)
        sizes[key] = total
        return total

    size(root)


def load_yaml_limited(text: str, path: Path) -> tuple[object, yaml.Node | None]:
    """(data, node) of one YAML document within the limits above; ImportFailure otherwise."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_YAML_BYTES:
        raise ImportFailure(f"YAML document over the limit of {MAX_YAML_BYTES} bytes: refused", path)
    loader = LimitedSafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, None
        _check_expanded_size(node)
        return loader.construct_document(node), node
    except _Refused as e:
        raise ImportFailure(e.message, path, e.line) from None
    except RecursionError:
        raise ImportFailure("YAML nested too deeply: refused", path) from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(e, "problem", None) or str(e)
        raise ImportFailure(f"invalid YAML: {problem}", path, line) from None
    finally:
        loader.dispose()


def load_yaml_with_lines(text: str, path: Path) -> tuple[object, dict[tuple, int]]:
    data, node = load_yaml_limited(text, path)
    lines: dict[tuple, int] = {}

    def walk(n: yaml.Node, at: tuple) -> None:
        if isinstance(n, yaml.MappingNode):
            for k, v in n.value:
                key = at + (k.value if isinstance(k, yaml.ScalarNode) else f"<{k.tag}>",)
                lines[key] = k.start_mark.line + 1
                walk(v, key)
        elif isinstance(n, yaml.SequenceNode):
            for i, item in enumerate(n.value):
                lines[at + (i,)] = item.start_mark.line + 1
                walk(item, at + (i,))

    if node is not None:
        walk(node, ())  # bounded: the node graph expands to at most MAX_NODES
    return data, lines
