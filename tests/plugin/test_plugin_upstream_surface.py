"""The plugin (`agents/custom/`) touches only names upstream AndroidWorld has.

The allowed surface is the written list in docs/UPSTREAM_SURFACE.md (taken from upstream's
source). Two scans over every file of `custom/`:
1. every `android_world.*` name reached through an import (module names, class members,
   constructor keywords) must be on the list;
2. no attribute may be one that exists only in this harness's version of those modules (such as
   `BoundingBox.contains`), whatever object it is read from, since the static scan cannot know
   the type of `box` in `box.contains(...)`.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import os
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CUSTOM = REPO / "android_world" / "agents" / "custom"
SURFACE_DOC = REPO / "docs" / "UPSTREAM_SURFACE.md"

Surface = dict[str, dict[str, set[str]]]


def load_surface(text: str) -> Surface:
    """`## \\`module\\`` headings, then `- module: a, b` / `- Class: member, ...` lines."""
    surface: Surface = {}
    module = None
    for line in text.splitlines():
        heading = re.match(r"^## `(android_world\.[\w.]+)`\s*$", line)
        if heading:
            module = heading.group(1)
            surface[module] = {}
            continue
        entry = re.match(r"^- (\w+): (.+)$", line)
        if entry and module is not None:
            owner, names = entry.groups()
            surface[module][owner] = {n.strip() for n in names.split(",") if n.strip()}
    return surface


SURFACE = load_surface(SURFACE_DOC.read_text(encoding="utf-8"))


def _classes(surface: Surface, module: str) -> set[str]:
    return {owner for owner in surface[module] if owner != "module"}


def _import_aliases(tree: ast.AST, surface: Surface) -> tuple[dict[str, str], dict[str, tuple]]:
    """Local names bound to listed modules, and to names imported from them."""
    modules: dict[str, str] = {}
    names: dict[str, tuple[str, str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in surface and alias.asname:
                    modules[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if full in surface:
                    modules[alias.asname or alias.name] = full
                elif node.module in surface:
                    names[alias.asname or alias.name] = (node.module, alias.name)
    return modules, names


def _listed_reference_violations(tree: ast.AST, surface: Surface) -> list[str]:
    modules, names = _import_aliases(tree, surface)
    problems: list[str] = []
    for module, name in names.values():
        if name not in surface[module]["module"]:
            problems.append(f"{module}.{name}")

    def owner_of(node: ast.AST) -> tuple[str, str] | None:
        """(module, Class) when `node` names a listed class of a listed module."""
        if isinstance(node, ast.Name) and node.id in names:
            return names[node.id]
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
        ):
            return modules[node.value.id], node.attr
        return None

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id in modules:
                module = modules[node.value.id]
                if node.attr not in surface[module]["module"]:
                    problems.append(f"{module}.{node.attr}")
                continue
            owner = owner_of(node.value)
            if (
                owner
                and owner[1] in _classes(surface, owner[0])
                and node.attr not in surface[owner[0]][owner[1]]
            ):
                problems.append(f"{owner[0]}.{owner[1]}.{node.attr}")
        elif isinstance(node, ast.Call):
            owner = owner_of(node.func)
            if owner and owner[1] in _classes(surface, owner[0]):
                for keyword in node.keywords:
                    if keyword.arg and keyword.arg not in surface[owner[0]][owner[1]]:
                        problems.append(f"{owner[0]}.{owner[1]}({keyword.arg}=...)")
    return problems


def harness_only_members(surface: Surface) -> set[str]:
    """Class members this harness's modules have and no listed upstream class has."""
    upstream_members = {m for owners in surface.values() for m in _members_of(owners)}
    extras: set[str] = set()
    for module_name in surface:
        module = importlib.import_module(module_name)
        for obj in vars(module).values():
            if not inspect.isclass(obj) or obj.__module__ != module_name:
                continue
            members = {a for a in vars(obj) if not a.startswith("_")}
            if dataclasses.is_dataclass(obj):
                members |= {f.name for f in dataclasses.fields(obj)}
            extras |= members - upstream_members
    return extras


def _members_of(owners: dict[str, set[str]]) -> set[str]:
    return {m for owner, members in owners.items() if owner != "module" for m in members}


def _harness_extension_violations(tree: ast.AST, extensions: set[str]) -> list[str]:
    return [
        f".{node.attr} (line {node.lineno})"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in extensions
    ]


def _plugin_files() -> list[Path]:
    files = sorted(CUSTOM.rglob("*.py"))
    assert len(files) >= 5
    return files


# --- the list itself ---------------------------------------------------------------------------


def test_surface_list_covers_the_six_upstream_modules():
    assert set(SURFACE) == {
        "android_world.env.interface",
        "android_world.env.json_action",
        "android_world.env.representation_utils",
        "android_world.agents.base_agent",
        "android_world.agents.infer",
        "android_world.agents.agent_utils",
    }
    assert "JSONAction" in SURFACE["android_world.env.json_action"]["module"]
    assert "center" in SURFACE["android_world.env.representation_utils"]["BoundingBox"]
    # The two names the plugin once used and upstream lacks are NOT on the list.
    assert "contains" not in SURFACE["android_world.env.representation_utils"]["BoundingBox"]
    assert "array_to_png_bytes" not in SURFACE["android_world.agents.infer"]["module"]


def test_every_listed_class_is_a_listed_module_name():
    for module, owners in SURFACE.items():
        assert _classes(SURFACE, module) <= owners["module"], module


# --- the scans on the plugin ------------------------------------------------------------------


@pytest.mark.parametrize("path", _plugin_files(), ids=lambda p: str(p.relative_to(CUSTOM)))
def test_plugin_uses_only_listed_upstream_names(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    assert _listed_reference_violations(tree, SURFACE) == []


@pytest.mark.parametrize("path", _plugin_files(), ids=lambda p: str(p.relative_to(CUSTOM)))
def test_plugin_reads_no_harness_only_attribute(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    assert _harness_extension_violations(tree, harness_only_members(SURFACE)) == []


# --- the scans catch what they are for ---------------------------------------------------------


def test_harness_extensions_are_found_by_comparing_with_the_list():
    extensions = harness_only_members(SURFACE)
    assert "contains" in extensions  # BoundingBox.contains exists only here
    assert "center" not in extensions and "bbox_pixels" not in extensions


def test_scan_catches_module_names_members_and_keywords_upstream_lacks():
    source = """
from android_world.agents import infer
from android_world.env import representation_utils as ru
from android_world.env.json_action import JSONAction, ACTION_TYPES
infer.array_to_png_bytes(image)
ru.BoundingBox.contains
JSONAction(action_type="click", finger=2)
infer.Gpt4Wrapper("m")
ru.UIElement(text="ok", bbox_pixels=None)
"""
    problems = _listed_reference_violations(ast.parse(source), SURFACE)
    assert sorted(problems) == sorted(
        [
            "android_world.env.json_action.ACTION_TYPES",
            "android_world.agents.infer.array_to_png_bytes",
            "android_world.env.representation_utils.BoundingBox.contains",
            "android_world.env.json_action.JSONAction(finger=...)",
        ]
    )


def test_scan_catches_a_harness_only_method_on_any_object():
    tree = ast.parse("def f(box, x, y):\n    return box.contains(x, y) and box.area > 0\n")
    assert _harness_extension_violations(tree, harness_only_members(SURFACE)) == [
        ".contains (line 2)"
    ]


# --- the list against a real upstream checkout (when one is cached) ------------------------------

UPSTREAM_CHECKOUT = Path(
    os.environ.get("CELIL_UPSTREAM_CHECKOUT") or REPO / ".cache" / "upstream" / "android_world"
)


def upstream_names(source: str) -> dict[str, set[str]]:
    """Top-level names of an upstream module and, per class, the members it defines: methods,
    properties, class-level fields and `self.x = ...` attributes (base classes not followed)."""
    tree = ast.parse(source)
    found: dict[str, set[str]] = {"module": set()}

    def targets(node: ast.AST) -> list[ast.AST]:
        if isinstance(node, ast.Assign):
            return node.targets
        if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            return [node.target]
        return []

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found["module"].add(node.name)
        for target in targets(node):
            if isinstance(target, ast.Name):
                found["module"].add(target.id)
        if not isinstance(node, ast.ClassDef):
            continue
        members = found.setdefault(node.name, set())
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                members.add(item.name)
            members |= {t.id for t in targets(item) if isinstance(t, ast.Name)}
        for item in ast.walk(node):
            for target in targets(item):
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                ):
                    members.add(target.attr)
    return found


def test_the_list_names_only_what_the_real_upstream_defines():
    if not (UPSTREAM_CHECKOUT / "run.py").is_file():
        pytest.skip(
            f"no upstream AndroidWorld checkout at {UPSTREAM_CHECKOUT}: run "
            "tests/upstream/fetch_upstream.sh (needs GitHub) or set CELIL_UPSTREAM_CHECKOUT"
        )
    missing = []
    for module, owners in SURFACE.items():
        path = UPSTREAM_CHECKOUT / (module.replace(".", "/") + ".py")
        real = upstream_names(path.read_text(encoding="utf-8"))
        for owner, names in owners.items():
            private = {n for n in names if n.startswith("_") and n != "__init__"}
            # A property defined upstream via its private attribute counts as the member.
            have = real.get(owner, set()) | {n.lstrip("_") for n in real.get(owner, set())}
            missing += [f"{module}.{owner}.{n}" for n in sorted(names - have - private)]
    assert missing == [], "docs/UPSTREAM_SURFACE.md lists names upstream does not define"


def test_the_real_upstream_scan_sees_what_it_should():
    names = upstream_names(
        "X = 1\nclass Box:\n  x_min: int\n  def __init__(self):\n    self._pause = 1\n"
        "  @property\n  def area(self):\n    return 0\n"
    )
    assert names == {"module": {"X", "Box"}, "Box": {"x_min", "__init__", "_pause", "area"}}
