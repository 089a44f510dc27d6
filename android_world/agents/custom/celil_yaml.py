"""Config YAML as a config user means it: UTF-8 text, YAML 1.2 booleans, no key given twice.

PyYAML alone gets three things wrong for a config file: it reads YAML 1.1, where `ocr: off`
arrives as False; a key given twice silently keeps the last value, so a second `models:` section
replaces the first without a word; and a non-UTF-8 byte surfaces as a traceback. The plugin's
factory and the harness's config loader both read through this module (the plugin cannot import
the harness, so the one copy lives here), and every problem is a `ConfigTextError` whose message
is one line naming the line and the key.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from yaml import nodes

_BOOL_TAG = "tag:yaml.org,2002:bool"
MAX_VALUES = 100_000
"""More values than a config has by far (the default has a few hundred): aliases can make a
short text expand exponentially, and everything downstream walks the expanded data."""
_MERGE_TAG = "tag:yaml.org,2002:merge"


class ConfigTextError(ValueError):
    """Config text that cannot be read. `line` (1-based) and `key` (dotted path) say where when
    known; `message` says what is wrong and what to do."""

    def __init__(self, message: str, line: int | None = None, key: str = ""):
        self.message = message
        self.line = line
        self.key = key
        super().__init__(self.located(""))

    def located(self, label: str) -> str:
        """One line: `label:line: key: message`, leaving out the parts not known."""
        where = f"{label}:{self.line}" if label and self.line else label
        return ": ".join(part for part in (where, self.key, self.message) if part)


class DuplicateKeyError(ConfigTextError):
    """A mapping key given twice: `path` is its dotted key path, `first_line` the first one's."""

    def __init__(self, path: str, line: int, first_line: int):
        self.path = path
        self.first_line = first_line
        super().__init__(
            f"duplicate key {path} (first on line {first_line}); a key given twice would "
            "silently replace the first, so keep one",
            line,
        )


class StrictLoader(yaml.SafeLoader):
    """A SafeLoader (no arbitrary objects) that reads only true/false as booleans and refuses a
    mapping key given twice at any depth (YAML merge keys `<<` still override, as they should)."""

    def get_single_data(self) -> Any:
        node = self.get_single_node()
        if node is None:
            return None
        duplicate = first_duplicate(node)
        if duplicate is not None:
            raise DuplicateKeyError(*duplicate)
        size = expanded_size(node, MAX_VALUES)
        if size is None:
            raise ConfigTextError("an alias (*name) refers to a node that contains it")
        if size > MAX_VALUES:
            raise ConfigTextError(
                f"the text expands to more than {MAX_VALUES} values through its aliases (*name)"
            )
        return self.construct_document(node)


StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != _BOOL_TAG]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
StrictLoader.add_implicit_resolver(
    _BOOL_TAG, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


def _walk(root: nodes.Node) -> Iterator[tuple[nodes.Node, tuple[str, ...]]]:
    """Every node once (aliases share nodes), in document order, with its key path."""
    seen: set[int] = set()
    stack: list[tuple[nodes.Node, tuple[str, ...]]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node, path
        if isinstance(node, nodes.MappingNode):
            children = [
                (value, path if key.tag == _MERGE_TAG else (*path, _key_text(key)))
                for key, value in node.value
            ]
        elif isinstance(node, nodes.SequenceNode):
            children = [(item, (*path, str(i))) for i, item in enumerate(node.value)]
        else:
            continue
        stack.extend(reversed(children))


def _children(node: nodes.Node) -> list[nodes.Node]:
    if isinstance(node, nodes.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, nodes.SequenceNode):
        return list(node.value)
    return []


def expanded_size(root: nodes.Node, limit: int) -> int | None:
    """How many values the data has once aliases are expanded (capped just above `limit`), or
    None when an alias is recursive. Each shared node is counted once and reused."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[nodes.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        if finished:
            total = 1 + sum(sizes[id(child)] for child in _children(node))
            sizes[id(node)] = min(total, limit + 1)
            open_nodes.discard(id(node))
            continue
        if id(node) in sizes:
            continue
        if id(node) in open_nodes:
            return None
        open_nodes.add(id(node))
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)
    return sizes[id(root)]


def _key_text(key: nodes.Node) -> str:
    return str(key.value) if isinstance(key, nodes.ScalarNode) else "?"


def first_duplicate(root: nodes.Node) -> tuple[str, int, int] | None:
    """(dotted key path, its line, the first occurrence's line) of the first key given twice."""
    for node, path in _walk(root):
        if not isinstance(node, nodes.MappingNode):
            continue
        first: dict[tuple[str, str], int] = {}
        for key, _ in node.value:
            if not isinstance(key, nodes.ScalarNode) or key.tag == _MERGE_TAG:
                continue
            line = key.start_mark.line + 1
            ident = (key.tag, key.value)
            if ident in first:
                return ".".join((*path, key.value)), line, first[ident]
            first[ident] = line
    return None


def load(text: str) -> Any:
    """Parse config text; raises ConfigTextError (a duplicate key, runaway aliases, nesting
    deeper than the parser can follow) or yaml.YAMLError (syntax)."""
    try:
        return yaml.load(text, Loader=StrictLoader)  # a SafeLoader subclass: no arbitrary objects
    except RecursionError:
        raise ConfigTextError("nested too deeply to read") from None


def read_text(path: str | Path) -> str:
    """A config file's text; a byte that is not UTF-8 is a ConfigTextError naming its line and,
    when the rest parses, the key it sits in."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        byte = data[error.start]
        raise ConfigTextError(
            f"not UTF-8 text (byte 0x{byte:02x} at column {column}); save the file as UTF-8",
            line,
            _key_on_line(data.decode("utf-8", errors="replace"), line),
        ) from None


def _key_on_line(text: str, line: int) -> str:
    """The dotted path of the deepest entry whose key or value is on `line` (1-based), or ""."""
    try:
        root = yaml.compose(text, Loader=StrictLoader)
    except (yaml.YAMLError, RecursionError):
        return ""
    best: tuple[str, ...] = ()
    for node, path in _walk(root) if root is not None else ():
        if not isinstance(node, nodes.MappingNode):
            continue
        for key, value in node.value:
            entry = (*path, _key_text(key))
            covers = key.start_mark.line + 1 == line or _first_line(value) <= line <= _last_line(
                value
            )
            if covers and len(entry) >= len(best):
                best = entry
    return ".".join(best)


def _first_line(node: nodes.Node) -> int:
    return node.start_mark.line + 1


def _last_line(node: nodes.Node) -> int:
    """The last line a node's text is on (a block's end mark is where the next token starts)."""
    end = node.end_mark
    return end.line if end.column == 0 and end.line > node.start_mark.line else end.line + 1
