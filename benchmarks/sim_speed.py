"""How fast the simulated phone steps: execute_action + get_state with a rendered 1080x2400 frame.

Run: `python benchmarks/sim_speed.py [--steps N]`. Prints one row per scenario: steps per second
(frames rendered, cache hits allowed as in a real episode), and the cold render time per frame
(cache disabled). "settings_tour" is navigation (screens recur, as in real episodes); "typing"
changes the screen on every step, so every frame is drawn from scratch (the worst case). Rows
with render "no" are SimEnv(render=False), as fast tests use it. Target: >= 100 steps per second.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, no install

from android_world.env.json_action import JSONAction
from android_world.env.sim import SimEnv


def _find(env: SimEnv, text: str) -> int:
    for i, element in enumerate(env.get_state().ui_elements):
        if text in (element.text, element.content_description):
            return i
    raise LookupError(text)


def settings_tour(env: SimEnv) -> Iterator[JSONAction]:
    """Navigating Settings: open, drill down, toggle, slide, scroll, go back, go home."""
    while True:
        yield JSONAction(action_type="open_app", app_name="Settings")
        yield JSONAction(action_type="click", index=_find(env, "Network & internet"))
        yield JSONAction(action_type="click", index=_find(env, "Internet"))
        yield JSONAction(action_type="click", index=_find(env, "Wi-Fi"))
        yield JSONAction(action_type="navigate_back")
        yield JSONAction(action_type="navigate_back")
        yield JSONAction(action_type="scroll", direction="down")
        yield JSONAction(action_type="scroll", direction="up")
        yield JSONAction(action_type="click", index=_find(env, "Display"))
        yield JSONAction(action_type="click", x=300, y=_slider_y(env))
        yield JSONAction(action_type="click", x=800, y=_slider_y(env))
        yield JSONAction(action_type="navigate_back")
        yield JSONAction(action_type="navigate_home")


def _slider_y(env: SimEnv) -> int:
    box = env.get_state().ui_elements[_find(env, "Brightness level")].bbox_pixels
    for element in env.get_state().ui_elements:
        if (element.class_name or "").endswith("SeekBar"):
            box = element.bbox_pixels
    assert box is not None
    return int(box.center[1])


def typing(env: SimEnv) -> Iterator[JSONAction]:
    """Every step shows new text, so every frame is rendered from scratch (worst case)."""
    from android_world.env.sim import widgets as w
    from android_world.env.sim.app import Screen

    class Note(Screen):
        def __init__(self, app):
            super().__init__(app)
            self.text = ""

        def build(self):
            return w.column(
                w.app_bar("Note", on_up=self.close),
                w.text_field(self.text, self.set, hint="Text", key="t", multiline=True, flex=1),
                flex=1,
            )

        def set(self, text: str) -> None:
            self.text = text[-300:]

    yield JSONAction(action_type="open_app", app_name="Markor")
    app = env.phone.current_app
    assert app is not None
    app.push(Note(app))
    env.phone.changed()
    yield JSONAction(action_type="click", index=_find(env, "Note") + 1)
    n = 0
    while True:
        n += 1
        yield JSONAction(action_type="input_text", text=f"word{n}")


def run(
    scenario: Callable[[SimEnv], Iterator[JSONAction]], steps: int, render: bool = True
) -> dict[str, float]:
    env = SimEnv(seed=0, render=render)
    actions = scenario(env)
    for _ in range(3):  # warm fonts and caches
        env.execute_action(next(actions))
        env.get_state()
    step_times = []
    start = time.perf_counter()
    for _ in range(steps):
        action = next(actions)
        t0 = time.perf_counter()
        env.execute_action(action)
        state = env.get_state()
        step_times.append(time.perf_counter() - t0)
        assert state.pixels.shape == (2400, 1080, 3)
    total = time.perf_counter() - start
    hit_rate = env.renderer.hits / max(1, env.renderer.hits + env.renderer.misses)
    # Cold render: draw the current frames again with the cache bypassed.
    cold = []
    for _ in range(10):
        t0 = time.perf_counter()
        env.renderer.draw(env.phone.frame().windows)
        cold.append(time.perf_counter() - t0)
    env.close()
    return {
        "steps_per_s": steps / total,
        "p50_ms": statistics.median(step_times) * 1000,
        "p95_ms": sorted(step_times)[int(0.95 * len(step_times))] * 1000,
        "cache_hit": hit_rate,
        "cold_render_ms": statistics.median(cold) * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args()
    header = (
        f"{'scenario':<16}{'render':>7}{'steps/s':>10}{'p50 ms':>9}{'p95 ms':>9}"
        f"{'cache hit':>11}{'cold render ms':>16}"
    )
    print(header)
    print("-" * len(header))
    rows = (
        ("settings_tour", settings_tour, True),
        ("typing", typing, True),
        ("settings_tour", settings_tour, False),
        ("typing", typing, False),
    )
    for name, scenario, render in rows:
        r = run(scenario, args.steps, render)
        print(
            f"{name:<16}{'yes' if render else 'no':>7}"
            f"{r['steps_per_s']:>10.1f}{r['p50_ms']:>9.2f}{r['p95_ms']:>9.2f}"
            f"{r['cache_hit']:>10.0%}{r['cold_render_ms']:>16.2f}"
        )


if __name__ == "__main__":
    main()
