"""`--check_models`: per-role pings, JSON checks and the executor grounding probe, on fake servers."""

from __future__ import annotations

import re

import models_fakes as fakes
import numpy as np
import pytest
from models_fakes import decode_png, free_port_url, gemini_ok, ollama_ok

from android_world.env.representation_utils import BoundingBox, UIElement
from android_world.harness.check_models import (
    EXIT_NO_MODEL,
    _fix_for,
    check_models,
    pick_target,
    run_checks,
)
from android_world.harness.model_config import ModelsConfig, RoleModelConfig

SECRET = "sk-SECRET-123"
W, H = 1080, 2400
ELEMENTS = [
    UIElement(text="Cancel", is_clickable=True, bbox_pixels=BoundingBox(100, 500, 1800, 1950)),
    UIElement(text="Save", is_clickable=True, bbox_pixels=BoundingBox(600, 1000, 1800, 1950)),
]
SCREEN = (np.full((H, W, 3), 200, dtype=np.uint8), ELEMENTS)


def fake_model(offset=(0, 0), elements=ELEMENTS):
    """Answers like a well-grounded UI-TARS (tap = target centre, in sent-image pixels) + JSON/text."""

    def respond(request):
        body = request["body"]
        user = body["messages"][-1]
        prompt = next((m["content"] for m in body["messages"] if "Tap the" in m["content"]), "")
        if user.get("images") and prompt:
            sent = decode_png(user["images"][-1])
            name = re.search(r"Tap the '([^']+)' element", prompt).group(1)
            box = next(e.bbox_pixels for e in elements if (e.text or e.content_description) == name)
            cx = (box.x_min + box.x_max) / 2 * sent.shape[1] / W + offset[0]
            cy = (box.y_min + box.y_max) / 2 * sent.shape[0] / H + offset[1]
            return ollama_ok(
                f"Thought: tap {name}\nAction: click(start_box='<|box_start|>({cx:.0f},{cy:.0f})<|box_end|>')"
            )
        fields = set((body.get("format") or {}).get("properties") or {})
        if "sub_goals" in fields:
            return ollama_ok('{"sub_goals": ["Open Settings", "Turn Wi-Fi on"], "rationale": "r"}')
        if "score" in fields:
            return ollama_ok('{"score": 8, "reasoning": "Settings holds the Wi-Fi switch."}')
        if body.get("format"):
            return ollama_ok('{"ok": true}')
        return ollama_ok("OK")

    return respond


def config_for(host, **extra):
    role = RoleModelConfig(backend="ollama", timeout_s=5, max_retries=0)
    return ModelsConfig(
        maestro=role, section_leader=role, verifiers=role, ollama_host=host, **extra
    )


server = fakes.fake_server


@pytest.fixture(autouse=True)
def key(monkeypatch):
    fakes.model_env(monkeypatch, SECRET)


def test_all_roles_pass_with_a_well_grounded_executor(server):
    server.route("POST", "/api/chat", fake_model())
    lines: list[str] = []
    assert check_models(config_for(server.url), log=lines.append, screen=SCREEN) == 0
    text = "\n".join(lines)
    rows = run_checks(config_for(server.url), screen=SCREEN)
    assert [(r.role, r.check, r.status) for r in rows] == [
        ("maestro", "ping", "PASS"),
        ("maestro", "run-shape", "PASS"),
        ("section_leader", "ping", "PASS"),
        ("section_leader", "grounding", "PASS"),
        ("verifiers", "ping", "PASS"),
        ("verifiers", "run-shape", "PASS"),
    ]
    assert "'Cancel'" in text or "'Save'" in text
    assert "0000/ui-tars-1.5-7b" in text  # the role default model was used
    assert re.search(r"\d+\.\d\ds", text)  # latency column


def test_misgrounded_executor_fails_with_a_fix(server):
    server.route("POST", "/api/chat", fake_model(offset=(0, 400)))
    lines: list[str] = []
    assert check_models(config_for(server.url), log=lines.append, screen=SCREEN) == 1
    (row,) = [
        r for r in run_checks(config_for(server.url), screen=SCREEN) if r.check == "grounding"
    ]
    assert row.status == "FAIL" and "coordinate convention" in row.fix


def test_unreachable_server_and_missing_key_fail_with_their_fixes(monkeypatch):
    monkeypatch.delenv("GOOGLE_API_KEY")
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    config = config_for(free_port_url())
    config.verifiers = RoleModelConfig(backend="gemini")
    lines: list[str] = []
    assert check_models(config, log=lines.append, screen=SCREEN) == 1
    rows = run_checks(config, screen=SCREEN)
    maestro = next(r for r in rows if r.role == "maestro")
    assert maestro.status == "FAIL" and "ollama serve" in maestro.fix
    verifiers = next(r for r in rows if r.role == "verifiers")
    assert verifiers.check == "setup" and "GOOGLE_API_KEY" in verifiers.detail
    assert "ollama serve" in " ".join(" ".join(lines).split())  # the detail column wraps
    assert max(len(x) for line in lines for x in line.splitlines()) <= 80


def test_offline_roles_are_skipped_and_no_model_at_all_is_not_a_pass():
    """Issue 31: with no model configured the check says so and exits EXIT_NO_MODEL, not 0."""
    role = RoleModelConfig(backend="offline")
    config = ModelsConfig(maestro=role, section_leader=role, verifiers=role)
    lines: list[str] = []
    assert check_models(config, log=lines.append) == EXIT_NO_MODEL
    assert "no model" in "\n".join(lines)
    assert all(r.status == "SKIP" for r in run_checks(config))


def test_output_never_contains_the_key(server):
    server.route(
        "POST", ":generateContent", [(400, {"error": {"code": 400, "message": f"bad {SECRET}"}})]
    )
    server.route("POST", "/api/chat", fake_model())
    config = config_for(server.url, gemini_base_url=server.url)
    config.maestro = RoleModelConfig(backend="gemini", max_retries=0)
    lines: list[str] = []
    assert check_models(config, log=lines.append, screen=SCREEN) == 1
    text = "\n".join(lines)
    assert "bad <redacted>" in text and SECRET not in text


def test_pick_target_prefers_unique_named_clickable_elements():
    duplicate = UIElement(
        text="Save", is_clickable=True, bbox_pixels=BoundingBox(0, 900, 1000, 1500)
    )
    assert pick_target([*ELEMENTS, duplicate], (W, H)) == (0, "Cancel")
    assert (
        pick_target(
            [UIElement(text="x", is_clickable=False, bbox_pixels=BoundingBox(0, 500, 500, 900))],
            (W, H),
        )
        is None
    )


def test_grounding_probe_on_the_simulated_phone(server):
    pytest.importorskip("android_world.env.sim.sim_env")
    from android_world.harness.check_models import sim_screen

    screen = sim_screen()
    assert not isinstance(screen, str), screen
    pixels, elements = screen
    _, name = pick_target(elements, (pixels.shape[1], pixels.shape[0]))
    server.route("POST", "/api/chat", fake_model(elements=elements))
    rows = run_checks(config_for(server.url), screen=screen)
    (row,) = [r for r in rows if r.check == "grounding"]
    assert row.status == "PASS", row.detail
    assert f"'{name}'" in row.detail


def gemini_pointing_on_a_1000_grid(request):
    """A Gemini executor: answers the probe in UI-TARS form but on Gemini's 0..1000 grid."""
    text = request["body"]["contents"][0]["parts"][0]["text"]
    name = re.search(r"Tap the '([^']+)' element", text).group(1)
    box = next(e.bbox_pixels for e in ELEMENTS if e.text == name)
    x = (box.x_min + box.x_max) / 2 / W * 1000
    y = (box.y_min + box.y_max) / 2 / H * 1000
    return gemini_ok(f"Thought: tap {name}\nAction: click(start_box='({x:.0f},{y:.0f})')")


@pytest.mark.parametrize(
    ("coordinates", "status"), [("auto", "PASS"), ("absolute_resized", "FAIL")]
)
def test_a_gemini_executor_is_probed_on_the_relative_grid(server, coordinates, status):
    server.route("POST", ":generateContent", gemini_pointing_on_a_1000_grid)
    config = config_for(server.url, gemini_base_url=server.url)
    config.section_leader = RoleModelConfig(
        backend="gemini", max_retries=0, coordinates=coordinates
    )
    (row,) = [r for r in run_checks(config, screen=SCREEN) if r.check == "grounding"]
    assert row.status == status
    expected = "relative_1000" if coordinates == "auto" else "absolute_resized"
    assert f"[{expected}, sent" in row.detail


def json_executor_model(pick_other: bool = False):
    """Answers the JSON executor (`executor_format: json`) with a click by element index: the
    element the sub-goal names, or (`pick_other`) its neighbour."""

    def respond(request):
        body = request["body"]
        text = "\n".join(str(m.get("content", "")) for m in body["messages"])
        named = re.search(r"Tap '([^']+)'", text)
        if named:
            names = [e.text for e in ELEMENTS]
            index = names.index(named.group(1))
            if pick_other:
                index = 1 - index
            return ollama_ok(
                f'Reason: it is the named button.\nAction: {{"action_type": "click", "index": {index}}}'
            )
        return fake_model()(request)

    return respond


@pytest.mark.parametrize("pick_other, status", [(False, "PASS"), (True, "FAIL")])
def test_json_executor_is_probed_by_index_not_by_a_point(server, pick_other, status):
    server.route("POST", "/api/chat", json_executor_model(pick_other))
    rows = run_checks(config_for(server.url), screen=SCREEN, executor_format="json")
    leader = [(r.check, r.status) for r in rows if r.role == "section_leader"]
    assert leader == [("ping", "PASS"), ("act-by-index", status)]
    (row,) = [r for r in rows if r.check == "act-by-index"]
    assert "UI-TARS" not in row.fix
    if status == "FAIL":
        assert "element index" in row.fix


@pytest.mark.parametrize(
    ("error", "fix"),
    [
        ("openai fake: HTTP 501: Not Implemented", "does not implement this request"),
        ("openai fake: HTTP 503: overloaded", "the server failed: re-run later"),
        ("openai fake: HTTP 429: slow down", "rate-limited"),
    ],
)
def test_a_501_names_a_missing_feature_not_a_passing_failure(error, fix):
    """501 Not Implemented does not go away on a re-run: the fix is the server's version or options."""
    assert fix in _fix_for(error)
