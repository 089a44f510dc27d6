"""What a published number needs beside it, recorded in manifest.json's `reproducibility`.

The field's Android-agent numbers fail to reproduce by 10-46 points because the observation a
model got, the image size it was sent, the step caps and the prompts go unreported. Each run
records them here, derived from what the run actually built (the agent's resolved roles and
config, the env's screen, the suite's tasks), and the report header shows them:

- `observation`: what each role that sees the screen is given (screenshot, accessibility tree or
  both) and the run's mode, the union over those roles;
- `image_sent`: the screen size and, per role that sends a screenshot, the size after its
  downscale (the executor's smart resize to multiples of 28, the judges' box filter);
- `step_budgets`: the rule and each task template's budget on this device;
- `prompt_hashes`: sha256 per prompt template of each role (the factory computes them; offline
  roles send no prompt).

Which role sees what is a table below, kept true by tests that drive each LLM role with a
recording model and compare (tests/test_run_facts.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

SCREENSHOT = "screenshot"
TREE = "accessibility_tree"
OFFLINE_BACKENDS = frozenset({"offline", ""})
# Agents of this harness that call no model: nothing is sent anywhere.
NO_MODEL_AGENTS = frozenset({"oracle_agent", "random_agent", "human_agent"})
BUDGET_RULE = "int(10 * complexity) (upstream AndroidWorld)"


def role_inputs(role: str, backend: str, config: Mapping[str, Any]) -> tuple[str, ...]:
    """What `role` is given of the screen, with `backend` and the agent's `config`.

    LLM roles: the planner, the judges and the vision fallback quote the element list (with any
    OCR lines) and attach the screenshot; the UI-TARS executor sends the screenshot alone, the
    JSON executor both. Offline roles read the element list (and OCR lines), no pixels.
    """
    if role == "verifiers" and config.get("verification") == "off":
        return ()
    if backend in OFFLINE_BACKENDS:
        return (TREE,)
    if role == "section_leader" and config.get("executor_format", "uitars") == "uitars":
        return (SCREENSHOT,)
    return (SCREENSHOT, TREE)


def observation_mode(inputs: Sequence[Sequence[str]]) -> str:
    seen = {kind for kinds in inputs for kind in kinds}
    if not seen:
        return "none"
    if seen == {SCREENSHOT, TREE}:
        return "both"
    return seen.pop()


def executor_size(screen: tuple[int, int], max_pixels: int) -> tuple[int, int]:
    """(width, height) the UI-TARS/JSON executor sends: the model's own smart resize."""
    from android_world.agents.custom.dialects import uitars

    height, width = uitars.smart_resize(screen[1], screen[0], max_pixels=max_pixels)
    return width, height


def judge_size(screen: tuple[int, int], max_pixels: int | None) -> tuple[int, int]:
    """(width, height) the planner, judges and vision fallback send (their shared downscale)."""
    from android_world.agents.custom.roles import celil_maestro

    blank = np.zeros((screen[1], screen[0], 3), dtype=np.uint8)
    height, width = celil_maestro.downscale(blank, max_pixels).shape[:2]
    return width, height


def image_sent(
    roles: Mapping[str, tuple[str, ...]], screen: tuple[int, int] | None, config: Mapping
) -> dict[str, Any]:
    max_pixels = config.get("max_image_pixels")
    facts: dict[str, Any] = {
        "screen": list(screen) if screen else None,
        "max_image_pixels": max_pixels,
        "history_images": config.get("history_images"),
        "roles": {},
    }
    if screen is None:
        return facts
    for role, kinds in roles.items():
        if SCREENSHOT not in kinds:
            continue
        if role == "section_leader":
            size = executor_size(screen, int(max_pixels or 0) or 1_003_520)
        else:
            size = judge_size(screen, max_pixels)
        facts["roles"][role] = list(size)
    sizes = list(facts["roles"].values())
    facts["max"] = [max(s[0] for s in sizes), max(s[1] for s in sizes)] if sizes else None
    return facts


def step_budgets(suite: Mapping[str, Sequence[Any]], env: Any, note: str = "") -> dict[str, Any]:
    """The rule and each template's budget as the runner computes it on this `env` (None when
    the driver holds no device, as in a parallel run: each episode's `step_budget` in
    results.jsonl then says it)."""
    from android_world.harness import suite_utils

    rule = BUDGET_RULE + (f", sim profile: {note}" if note else "")
    tasks: dict[str, int] = {}
    if env is not None:
        for name, instances in suite.items():
            if instances:
                tasks[name] = suite_utils.step_budget(instances[0], env)
    return {"rule": rule, "tasks": tasks}


def reproducibility(
    manifest: Mapping[str, Any], suite: Mapping[str, Sequence[Any]], cfg: Any, env: Any = None
) -> dict[str, Any]:
    """manifest.json's `reproducibility` block for a run of the harness config `cfg` whose
    manifest holds `agent` (and, once the agent is built, `agent_info`); `env` is the device
    when this process holds one."""
    agent = manifest.get("agent") if isinstance(manifest.get("agent"), Mapping) else {}
    info = manifest.get("agent_info") if isinstance(manifest.get("agent_info"), Mapping) else {}
    roles_info = info.get("roles") if isinstance(info.get("roles"), Mapping) else {}
    config = info.get("config") if isinstance(info.get("config"), Mapping) else {}
    screen = _screen(env) or _sim_screen(cfg)
    roles: dict[str, tuple[str, ...]] = {}
    for role, value in roles_info.items():
        backend = str(value.get("backend") or "") if isinstance(value, Mapping) else ""
        roles[str(role)] = role_inputs(str(role), backend, config)
    if roles:
        mode = observation_mode(list(roles.values()))
    elif agent.get("registry_name") in NO_MODEL_AGENTS:
        mode = "none"
    else:
        mode = "not reported by the agent"
    hashes = info.get("prompt_hashes") if isinstance(info.get("prompt_hashes"), Mapping) else {}
    return {
        "observation": {
            "mode": mode,
            "roles": {role: list(kinds) for role, kinds in roles.items()},
            "ocr": config.get("ocr"),
        },
        "image_sent": image_sent(roles, screen, config),
        "step_budgets": step_budgets(suite, env, _budget_note(cfg)),
        "prompt_hashes": {str(k): dict(v) for k, v in hashes.items() if isinstance(v, Mapping)},
    }


def _screen(env: Any) -> tuple[int, int] | None:
    """The device's (width, height) in pixels, when the env says."""
    try:
        width, height = env.device_screen_size
        return int(width), int(height)
    except Exception:  # no env (parallel driver) or a device that cannot say
        return None


def _sim_profile(cfg: Any) -> Any:
    if cfg.env.type != "sim":
        return None
    from android_world.env import sim_profile

    try:
        return sim_profile.parse(cfg.env.sim.profile)
    except sim_profile.ProfileError:  # the config check has already refused it
        return None


def _sim_screen(cfg: Any) -> tuple[int, int] | None:
    """The simulated phone's size from the config (a parallel run's driver holds no device)."""
    profile = _sim_profile(cfg)
    return (profile.screen.width, profile.screen.height) if profile else None


def _budget_note(cfg: Any) -> str:
    profile = _sim_profile(cfg)
    if profile is None or not cfg.env.sim.adjust_step_budget:
        return ""
    return profile.step_budget_note()


def header_lines(
    facts: Mapping[str, Any] | None, budgets_seen: Mapping[str, int] | None = None
) -> list[dict[str, str]]:
    """The report header's rows for `facts` (manifest.json's `reproducibility`); none for a run
    recorded before it existed. `budgets_seen` (task -> the budget its episodes ran with, from
    results.jsonl) stands in when the manifest lists none (a parallel run's driver has no
    device to ask)."""
    if not isinstance(facts, Mapping):
        return []
    rows = []
    obs = facts.get("observation") or {}
    per_role = ", ".join(
        f"{r}: {'+'.join(k) or 'nothing'}" for r, k in obs.get("roles", {}).items()
    )
    ocr = f"; OCR {obs['ocr']}" if obs.get("ocr") else ""
    rows.append(
        {
            "key": "observation",
            "value": f"{obs.get('mode')}" + (f" ({per_role}{ocr})" if per_role else ""),
        }
    )
    image = facts.get("image_sent") or {}
    sizes = image.get("roles") or {}
    if sizes:
        text = ", ".join(f"{r} {w}x{h}" for r, (w, h) in sizes.items())
        screen = image.get("screen")
        text += f" (screen {screen[0]}x{screen[1]}" if screen else " ("
        text += f", cap {image.get('max_image_pixels')} px"
        if image.get("history_images"):
            text += f", up to {image['history_images']} earlier screenshots to the executor"
        rows.append({"key": "image sent", "value": text + ")"})
    else:
        rows.append({"key": "image sent", "value": "none (no role sends a screenshot)"})
    budgets = facts.get("step_budgets") or {}
    tasks = budgets.get("tasks") or budgets_seen or {}
    text = str(budgets.get("rule") or "")
    if tasks:
        low, high = min(tasks.values()), max(tasks.values())
        text += f"; {low}-{high} steps over {len(tasks)} tasks" if low != high else f"; {low} steps"
    rows.append({"key": "step budgets", "value": text})
    hashes = facts.get("prompt_hashes") or {}
    parts = [
        f"{role}: " + (", ".join(f"{n} {h[:12]}" for n, h in sorted(v.items())) or "no prompt")
        for role, v in hashes.items()
    ]
    rows.append({"key": "prompt hashes", "value": "; ".join(parts) or "none recorded"})
    return rows
