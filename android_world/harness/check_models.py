"""`--check_models`: is every role's model reachable, answering, and (for the executor) grounded?

A benchmark run that discovers a missing key or an unpulled model an hour in wastes the hour, and a
UI-TARS build that answers fine but taps the wrong place (quantisation, the wrong coordinate
convention, server-side resizing) fails every task silently. So before running we make one tiny
call per role, one structured-output call where the role needs JSON, and for the executor one
grounding probe: render a simulated screen, ask for a tap on a named element, map the reply back
to screen pixels and check it lands inside the element. Each failure row carries its fix.
"""

from __future__ import annotations

import dataclasses
import re
import textwrap
import time
from collections.abc import Callable, Sequence

import numpy as np

from android_world.agents import agent_utils
from android_world.agents.custom.celil_secrets import redact
from android_world.agents.custom.model_clients.call_types import ModelRequest
from android_world.agents.custom.model_clients.client import CelilModel
from android_world.agents.custom.model_clients.errors import ModelSetupError
from android_world.agents.custom.model_clients.ledger import UsageLedger
from android_world.agents.custom.model_clients.resolution import Resolution, resolve_role
from android_world.agents.custom.model_clients.settings import RoleSettings
from android_world.agents.custom.roles import celil_check_requests
from android_world.env import representation_utils
from android_world.harness import discover
from android_world.harness.model_config import ModelsConfig

PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"
EXIT_NO_MODEL = 4
"""`--check_models` found no model to check: every role runs offline (configured so, or `auto`
found nothing). Not a pass: the check was asked for a model and there is none."""
_JSON_ROLES = ("maestro", "verifiers", "vision_fallback")
_PING_PROMPT = "Reply with the single word OK."
_JSON_PROMPT = 'Reply with the JSON object {"ok": true}.'
_JSON_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}

Screen = tuple[np.ndarray, list[representation_utils.UIElement]]


@dataclasses.dataclass
class CheckRow:
    role: str
    backend: str
    model: str
    check: str
    status: str
    latency_s: float | None = None
    detail: str = ""
    fix: str = ""


def _fix_for(error: str) -> str:
    """The actionable part of an error message (our messages put the fix after the last ';')."""
    for marker in (
        "; run ",
        "; start ",
        "; set ",
        "; raise ",
        "; check ",
        "; re-record",
        "; record ",
    ):
        position = error.rfind(marker)
        if position >= 0:
            return error[position + 2 :]
    if "timed out" in error or "did not answer within" in error:
        return "raise the role's timeout_s"
    if "HTTP 429" in error:
        return "rate-limited or out of quota: wait and re-run, raise retry_initial_delay_s, or check the quota"
    if "HTTP 501" in error:
        return (
            "the server does not implement this request (an endpoint, images or structured "
            "output it lacks): check its version and the options it was started with"
        )
    if re.search(r"HTTP 5\d\d", error):
        return "the server failed: re-run later"
    if "safety" in error:
        return "the model's safety filter blocked the probe; try another model"
    return "see the error"


def _call_row(
    role: str,
    wrapper: CelilModel,
    check: str,
    request: ModelRequest,
    accept: Callable[[str], str | None],
) -> CheckRow:
    """Run one request; `accept(text)` returns None when the answer is acceptable, else why not."""
    started = time.monotonic()
    result = wrapper.call(request)
    latency = time.monotonic() - started
    model = result.record.model or wrapper.model
    if not result.ok:
        error = result.record.error or "error"
        return CheckRow(role, wrapper.backend, model, check, FAIL, latency, error, _fix_for(error))
    problem = accept(result.text)
    note = f" [{result.record.note}]" if result.record.note else ""
    if problem:
        return CheckRow(
            role, wrapper.backend, model, check, FAIL, latency, problem + note, "try another model"
        )
    return CheckRow(role, wrapper.backend, model, check, PASS, latency, _short(result.text) + note)


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _accept_text(text: str) -> str | None:
    return None if text.strip() else "empty answer"


def _accept_json(text: str) -> str | None:
    parsed = agent_utils.extract_json(text)
    if not isinstance(parsed, dict):
        return f"answer is not a JSON object: {_short(text)!r}"
    return None


# --------------------------------------------------------------------------------------------------
# Grounding probe
# --------------------------------------------------------------------------------------------------


def sim_screen(seed: int = 0) -> Screen | str:
    """A rendered simulated home screen and its elements, or why it is not available."""
    try:
        from android_world.env.sim.sim_env import SimEnv
    except ImportError as exc:
        return f"simulated phone not available ({exc})"
    env = SimEnv(seed=seed, render=True)
    try:
        state = env.reset(go_home=True)
        return np.asarray(state.pixels), list(state.ui_elements)
    finally:
        env.close()


def pick_target(
    elements: Sequence[representation_utils.UIElement], screen_size: tuple[int, int]
) -> tuple[int, str] | None:
    """A clearly named, reasonably large clickable element below the status bar: (index, name)."""
    width, height = screen_size
    best: tuple[float, int, str] | None = None
    for index, element in enumerate(elements):
        name = (element.text or element.content_description or "").strip()
        box = element.bbox_pixels
        if not name or box is None or not element.is_clickable or len(name) > 30:
            continue
        w, h = box.x_max - box.x_min, box.y_max - box.y_min
        if w < 40 or h < 40 or box.y_min < 0.05 * height or w * h > 0.25 * width * height:
            continue
        names = [(e.text or e.content_description or "").strip() for e in elements]
        if names.count(name) > 1:
            continue
        area = w * h
        if best is None or area > best[0]:
            best = (area, index, name)
    return (best[1], best[2]) if best else None


def model_key_for(settings: RoleSettings, backend: str) -> str:
    """The config key naming the model `settings` runs on `backend`: `model` for an explicit
    backend and for an OpenAI-compatible server; under `auto`, Gemini's and Ollama's own keys
    (their role defaults would win over `model`)."""
    if settings.backend == "auto" and backend in ("gemini", "ollama"):
        return f"models.{settings.role}.{backend}_model"
    return f"models.{settings.role}.model"


def grounding_probe(
    wrapper: CelilModel,
    screen: Screen,
    coordinates: str = "absolute_resized",
    model_key: str = "models.section_leader.model",
) -> CheckRow:
    """Ask the executor to tap a named element; PASS when the mapped point is inside it.
    `model_key` is the config key a fix names (see `model_key_for`)."""

    def row(
        status: str, latency: float | None, detail: str, fix: str = "", model: str = ""
    ) -> CheckRow:
        model = model or wrapper.model
        return CheckRow(
            wrapper.role, wrapper.backend, model, "grounding", status, latency, detail, fix
        )

    pixels, elements = screen
    target = pick_target(elements, (int(pixels.shape[1]), int(pixels.shape[0])))
    if target is None:
        return row(SKIP, None, "no suitable element on the probe screen")
    index, name = target
    probe = celil_check_requests.grounding_request(pixels, name)
    started = time.monotonic()
    result = wrapper.call(probe.request)
    latency = time.monotonic() - started
    model = result.record.model or wrapper.model
    note = f" [{result.record.note}]" if result.record.note else ""
    if not result.ok:
        error = result.record.error or "error"
        return row(FAIL, latency, error + note, _fix_for(error), model)
    point = celil_check_requests.grounding_point(result.text, probe, coordinates)
    if isinstance(point, str):
        detail = f"unusable UI-TARS output ({point}): {_short(result.text)!r}{note}"
        return row(FAIL, latency, detail, f"use a UI-TARS model ({model_key})", model)
    x, y = point
    sent_size = probe.sent_size
    box = elements[index].bbox_pixels
    assert box is not None
    inside = box.x_min <= x <= box.x_max and box.y_min <= y <= box.y_max
    detail = (
        f"'{name}' at ({box.x_min},{box.y_min})-({box.x_max},{box.y_max}); tapped ({x},{y}) "
        f"[{coordinates}, sent {sent_size[0]}x{sent_size[1]}]{note}"
    )
    if inside:
        return row(PASS, latency, detail, model=model)
    fix = (
        "check the coordinate convention (models.section_leader.coordinates: absolute_resized for "
        "UI-TARS-1.5, relative_1000 for v1 and Gemini) and avoid heavily quantised builds"
    )
    return row(FAIL, latency, detail, fix, model)


def index_probe(wrapper: CelilModel, screen: Screen) -> CheckRow:
    """The JSON executor (`executor_format: json`) acts by element index, not by a point: ask the
    real executor to tap a named element on the probe screen; PASS when it clicks that element."""
    from android_world.agents.custom.roles import celil_perception, celil_section_leader
    from android_world.env import interface

    def row(status: str, latency: float | None, detail: str, fix: str = "") -> CheckRow:
        return CheckRow(
            wrapper.role,
            wrapper.backend,
            wrapper.model,
            "act-by-index",
            status,
            latency,
            detail,
            fix,
        )

    pixels, elements = screen
    target = pick_target(elements, (int(pixels.shape[1]), int(pixels.shape[0])))
    if target is None:
        return row(SKIP, None, "no suitable element on the probe screen")
    index, name = target
    state = interface.State(pixels=pixels, forest=None, ui_elements=list(elements))
    observation = celil_perception.PerceptionModule(ocr="off").process_observation(state)
    executor = celil_section_leader.UITarsActionGenerator(wrapper, executor_format="json")
    started = time.monotonic()
    proposal = executor.generate_action(f"Tap '{name}'", observation, "")
    latency = time.monotonic() - started
    action = proposal.action
    if action is None:
        detail = proposal.error or "the executor proposed no action"
        return row(FAIL, latency, f"{detail}: {_short(proposal.raw_output)!r}", "try another model")
    detail = f"'{name}' is element [{index}]; proposed {action.action_type} index={action.index}"
    if action.action_type == "click" and action.index == index:
        return row(PASS, latency, detail)
    return row(FAIL, latency, detail, "try another model (the JSON executor acts by element index)")


# --------------------------------------------------------------------------------------------------
# The command
# --------------------------------------------------------------------------------------------------


def run_checks(
    models_config: ModelsConfig,
    *,
    screen: Screen | None = None,
    ledger: UsageLedger | None = None,
    log: Callable[[str], None] | None = None,
    executor_format: str = "uitars",
) -> list[CheckRow]:
    """One row per check; `log` also gets each role's one-line resolution (what was chosen, why).
    The executor is probed in its own dialect: a UI-TARS point, or a JSON action by index."""
    ledger = ledger or models_config.make_ledger()
    rows: list[CheckRow] = []
    probe_screen: Screen | str | None = screen
    for role in models_config.roles():
        settings = models_config.role_settings(role)
        try:
            resolution = resolve_role(role, settings, ledger)
        except ModelSetupError as exc:
            rows.append(_setup_failed(role, settings, redact(str(exc)), log))
            continue
        if log:
            log(discover.wrap_line(redact(resolution.line())))
        wrapper = resolution.wrapper
        if wrapper is None:
            rows.append(CheckRow(role, "offline", "", "setup", SKIP, None, resolution.reason))
            continue
        rows.append(_call_row(role, wrapper, "ping", ModelRequest(_PING_PROMPT), _accept_text))
        if probe_screen is None and (
            role in celil_check_requests.ROLE_PROBES or role == "section_leader"
        ):
            probe_screen = sim_screen()
        rows += _shape_rows(role, resolution, settings, probe_screen, executor_format)
    return rows


def _setup_failed(
    role: str, settings: RoleSettings, message: str, log: Callable[[str], None] | None
) -> CheckRow:
    """The row of a role whose model could not be set up (the message is already redacted)."""
    if log:
        log(discover.wrap_line(message))
    return CheckRow(
        role, settings.backend, settings.model, "setup", FAIL, None, message, _fix_for(message)
    )


def _shape_rows(
    role: str,
    resolution: Resolution,
    settings: RoleSettings,
    probe_screen: Screen | str | None,
    executor_format: str,
) -> list[CheckRow]:
    """After the ping: the role's run-shaped request (or a JSON answer), and for the executor
    the grounding probe in its dialect (skipped, with the reason, when no screen could be made)."""
    wrapper = resolution.wrapper
    rows: list[CheckRow] = []
    screen_or_none = None if isinstance(probe_screen, str) else probe_screen
    if role in celil_check_requests.ROLE_PROBES:
        screenshot = screen_or_none[0] if screen_or_none is not None else None
        probe = celil_check_requests.ROLE_PROBES[role](screenshot)
        rows.append(_call_row(role, wrapper, "run-shape", probe.request, probe.accept))
    elif role in _JSON_ROLES:
        request = ModelRequest(_JSON_PROMPT, schema=_JSON_SCHEMA)
        rows.append(_call_row(role, wrapper, "json", request, _accept_json))
    if role == "section_leader":
        if isinstance(probe_screen, str):
            rows.append(
                CheckRow(
                    role, wrapper.backend, wrapper.model, "grounding", SKIP, None, probe_screen
                )
            )
        elif executor_format == "json":
            rows.append(index_probe(wrapper, probe_screen))
        else:
            key = model_key_for(settings, resolution.backend)
            rows.append(grounding_probe(wrapper, probe_screen, resolution.coordinates, key))
    return rows


def format_table(rows: Sequence[CheckRow], wide: bool = False) -> list[str]:
    """One line per check (role, check, result, latency, model), then its detail and fix folded
    to 80 columns under it; `wide` keeps everything on one line per check."""
    headers = ("role", "check", "result", "latency", "backend/model")
    body = []
    details = []
    for row in rows:
        latency = f"{row.latency_s:.2f}s" if row.latency_s is not None else "-"
        detail = row.detail
        if row.fix and row.fix not in detail:
            detail = f"{detail} -> fix: {row.fix}"
        body.append(
            (row.role, row.check, row.status, latency, f"{row.backend} {row.model}".strip())
        )
        details.append(detail)
    widths = [
        max(len(h), *(len(r[i]) for r in body)) if body else len(h) for i, h in enumerate(headers)
    ]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    lines = [line(headers), line(["-" * w for w in widths])]
    for cells, detail in zip(body, details, strict=True):
        if wide:
            lines.append(f"{line(cells)}  {detail}")
            continue
        lines.append(line(cells))
        if detail:
            lines += textwrap.wrap(
                detail,
                80,
                initial_indent="    ",
                subsequent_indent="    ",
                break_on_hyphens=False,
                break_long_words=False,
            )
    return [redact(text) for text in lines]


def check_models(
    models_config: ModelsConfig,
    log: Callable[[str], None] = print,
    *,
    screen: Screen | None = None,
    wide: bool = False,
    executor_format: str = "uitars",
) -> int:
    """Check every configured role; print a table. 0 when nothing failed, 1 when a check
    failed, EXIT_NO_MODEL when no role has a model to check."""
    ledger = models_config.make_ledger()
    rows = run_checks(
        models_config, screen=screen, ledger=ledger, log=log, executor_format=executor_format
    )
    for line in format_table(rows, wide):
        log(line)
    failed = [row for row in rows if row.status == FAIL]
    totals = ledger.totals()
    log(f"{len(rows) - len(failed)}/{len(rows)} checks passed or skipped")
    log(
        f"{totals['model_calls']} model calls, "
        f"{totals['prompt_tokens'] + totals['completion_tokens']} tokens, ${totals['cost_usd']:.4f} estimated"
    )
    if failed:
        return 1
    if all(row.check == "setup" and row.status == SKIP for row in rows):
        log(
            discover.wrap_line(
                "no model: every role runs offline, so nothing was checked "
                f"(exit {EXIT_NO_MODEL}); configure a model per role (docs/MODELS.md), e.g. --set models.openai_base_url=http://127.0.0.1:8000/v1 for a "
                "local server"
            )
        )
        return EXIT_NO_MODEL
    return 0
