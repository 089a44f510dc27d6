"""Every name upstream's own agents (T3A, M3A, SeeAct, random and human agents, and the helper
modules they bring) use from `infer`, `env` and `agents` exists here, with a signature that
accepts upstream's calls. The list is tests/fixtures/upstream_agent_surface.json, an AST scan of
upstream's code (tests/upstream_agent_surface.py), shown in docs/UPSTREAM_SURFACE.md."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
from typing import Any

import pytest
import upstream_agent_surface as scanner
import upstream_support

SURFACE = json.loads(scanner.FIXTURE.read_text(encoding="utf-8"))
WRAPPERS = ("Gpt4Wrapper", "GeminiGcpWrapper")


def _ours(module: str, dotted: str) -> list[Any]:
    """Our objects for a name (the model wrapper `llm`: each of our upstream-named wrappers)."""
    target = importlib.import_module(module)
    head, _, member = dotted.partition(".")
    owners = [getattr(target, w) for w in WRAPPERS] if head == "llm" else [getattr(target, head)]
    if not member:
        return owners
    found = []
    for owner in owners:
        fields = (
            {f.name for f in dataclasses.fields(owner)}
            if dataclasses.is_dataclass(owner)
            else set()
        )
        if member in fields:
            found.append(dataclasses.MISSING)  # a field: present, no signature to compare
        else:
            found.append(inspect.getattr_static(owner, member))
    return found


def _callable(obj: Any) -> Any:
    if isinstance(obj, classmethod | staticmethod):
        return obj.__func__
    return obj


def incompatibilities(ours: Any, params: list[list[Any]], keywords: list[str]) -> list[str]:
    """Why a call written for upstream's parameters could fail on ours (empty when none)."""
    try:
        sig = inspect.signature(ours)
    except (TypeError, ValueError):
        return ["no signature"]
    mine = [p for p in sig.parameters.values() if p.name not in ("self", "cls")]
    by_name = {p.name: p for p in mine}
    var_kw = any(p.kind is p.VAR_KEYWORD for p in mine)
    var_pos = any(p.kind is p.VAR_POSITIONAL for p in mine)
    positional = [p for p in mine if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    problems = []
    upstream_positional = [
        p for p in params if p[1] in ("positional_only", "positional_or_keyword")
    ]
    for i, (name, _kind, _default) in enumerate(upstream_positional):
        if i < len(positional):
            if positional[i].name != name:
                problems.append(f"position {i}: {positional[i].name}, upstream {name}")
        elif not var_pos:
            problems.append(f"no positional parameter {name}")
    for name, kind, has_default in params:
        if kind in ("var_positional", "var_keyword"):
            continue
        here = by_name.get(name)
        if here is None and not var_kw and kind != "positional_only":
            problems.append(f"no parameter {name}")
        elif here is not None and has_default and here.default is inspect.Parameter.empty:
            problems.append(f"{name} needs a default (upstream's calls may leave it out)")
    known = {p[0] for p in params}
    for p in mine:
        if (
            p.name not in known
            and p.default is inspect.Parameter.empty
            and p.kind
            not in (
                p.VAR_POSITIONAL,
                p.VAR_KEYWORD,
            )
        ):
            problems.append(f"{p.name} is required here, unknown upstream")
    for keyword in keywords:
        if keyword not in by_name and not var_kw:
            problems.append(f"keyword {keyword} not accepted")
    return problems


@pytest.mark.parametrize(
    "entry", SURFACE["names"], ids=[f"{e['module']}.{e['name']}" for e in SURFACE["names"]]
)
def test_upstreams_name_exists_here_with_a_compatible_signature(entry):
    assert entry["kind"] != "unknown", entry
    for obj in _ours(entry["module"], entry["name"]):
        if entry["kind"] == "property":
            assert isinstance(obj, property) or not callable(obj), (entry["name"], obj)
            continue
        params = entry.get("params")
        if params is None or obj is dataclasses.MISSING:
            continue
        target = obj
        if entry["kind"] == "class":
            assert inspect.isclass(obj), entry["name"]
        else:
            target = _callable(obj)
            if entry["kind"] == "classmethod":
                assert isinstance(obj, classmethod), f"{entry['name']} is not a classmethod here"
        assert incompatibilities(target, params, entry["keywords"]) == [], entry["name"]


def test_encode_image_gives_upstreams_base64_jpeg():
    import base64

    import numpy as np

    from android_world.agents import infer

    image = np.zeros((8, 6, 3), dtype=np.uint8)
    encoded = infer.Gpt4Wrapper.encode_image(image)
    assert isinstance(encoded, str)
    assert base64.b64decode(encoded).startswith(b"\xff\xd8")  # a JPEG, as upstream's


def test_the_doc_shows_the_fixture():
    """If this fails: python tests/upstream_agent_surface.py (and commit the doc)."""
    assert scanner.main(["--check"]) == 0


def test_the_fixture_is_a_scan_of_the_checkout():
    why = upstream_support.missing()
    if why:
        pytest.skip(why)
    fresh = scanner.scan(upstream_support.checkout())
    if fresh["source"]["commit"] != SURFACE["source"]["commit"]:
        pytest.skip(f"the checkout is at {fresh['source']['commit'][:12]}, the fixture at "
                    f"{SURFACE['source']['commit'][:12]}")  # fmt: skip
    assert fresh == SURFACE


def test_the_compatibility_check_can_fail():
    def ours(a, b, *, c):
        return a, b, c

    upstream = [["a", "positional_or_keyword", False], ["x", "positional_or_keyword", True]]
    problems = incompatibilities(ours, upstream, ["y"])
    assert "position 1: b, upstream x" in problems
    assert "no parameter x" in problems and "keyword y not accepted" in problems
    assert "c is required here, unknown upstream" in problems
