"""Sim profiles (issue 15.3-15.5): screens in dp, the keyboard keeping the focused field in view,
first-launch pop-ups, vendor wording, screens that settle late, and the oracle under each."""

from __future__ import annotations

import dataclasses
import itertools
import random

import pytest
import sim_profiles
from sim_task_support import make_task

from android_world.agents.oracle_agent import OracleAgent
from android_world.env import sim_profile
from android_world.env.json_action import JSONAction
from android_world.env.sim import SimEnv
from android_world.harness import config as config_lib
from android_world.harness import suite_utils
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.registry import TaskRegistry

REGISTRY = TaskRegistry().get_registry()


def _act(env: SimEnv, **kw) -> None:
    env.execute_action(JSONAction(**kw))


def _index(env: SimEnv, match) -> int:
    index = ui.find(env.get_state(wait_to_stabilize=True).ui_elements, match)
    assert index is not None
    return index


def _settings_rows(env: SimEnv) -> int:
    _act(env, action_type="open_app", app_name="Settings")
    items = env.get_state().ui_elements
    area = ui.content_area(items)
    return sum(1 for e in items if e.resource_name == "android:id/title" and ui.visible(e, area))


# ---- profiles: parsing, config, listing ---------------------------------------------------


def test_parse_composes_parts_and_rejects_bad_ones():
    profile = sim_profile.parse("small, dialogs,vendor,slow")
    assert (profile.screen_name, profile.dialogs, profile.vendor) == ("small", True, True)
    assert profile.latency_frames > 0 and profile.name == "small,dialogs,vendor,slow"
    assert sim_profile.parse(["landscape", "dialogs"]).name == "landscape,dialogs"
    assert sim_profile.parse(None).is_default and sim_profile.parse("default").is_default
    with pytest.raises(sim_profile.ProfileError, match="unknown sim profile part 'tiny'"):
        sim_profile.parse("tiny")
    with pytest.raises(sim_profile.ProfileError, match="two screens"):
        sim_profile.parse("small,large")
    assert [p.name for p in sim_profile.expand("all")] == list(sim_profile.MATRIX)


def test_config_key_accepts_a_string_or_a_list_and_names_the_bad_part():
    cfg = config_lib.CelilConfig.model_validate({"env": {"sim": {"profile": "small,slow"}}})
    assert cfg.env.sim.profile == ["small", "slow"]
    cfg = config_lib.CelilConfig.model_validate({"env": {"sim": {"profile": ["vendor"]}}})
    assert cfg.env.sim.profile == ["vendor"]
    assert config_lib.CelilConfig.model_validate({}).env.sim.profile == []
    with pytest.raises(Exception, match="unknown sim profile part 'wlan'"):
        config_lib.CelilConfig.model_validate({"env": {"sim": {"profile": "wlan"}}})


def test_list_profiles_names_every_part_within_80_columns():
    text = sim_profile.list_text()
    for part in [*sim_profile.SCREENS, *sim_profile.BEHAVIOURS, "all"]:
        assert f"  {part} " in text
    assert max(len(line) for line in text.splitlines()) <= 80


# ---- geometry ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "size", "orientation"),
    [
        ("default", (1080, 2400), 0),
        ("small", (720, 1520), 0),
        ("large", (1440, 3120), 0),
        ("landscape", (2400, 1080), 1),
    ],
)
def test_screen_size_density_and_orientation(name, size, orientation):
    env = SimEnv(profile=name)
    try:
        state = env.get_state()
        assert state.pixels.shape == (size[1], size[0], 3)
        assert env.device_screen_size == env.logical_screen_size == size
        assert env.orientation == orientation
        # Layouts are in dp: the navigation bar is 50 dp thick on every screen (at the bottom,
        # or on the right edge of a landscape phone).
        back = state.ui_elements[ui.find(state.ui_elements, ui.desc_is("Back"), need_visible=False)]
        dpi = sim_profile.SCREENS[name].dpi
        box = back.bbox_pixels
        if orientation:
            assert box.x_max == size[0] and abs((box.x_max - box.x_min) - 132 * dpi / 420) <= 1
            top, bottom = ui.content_area(state.ui_elements)
            assert top == 63 and bottom >= size[1]
        else:
            assert box.y_max == size[1] and abs((box.y_max - box.y_min) - 132 * dpi / 420) <= 1
        # Touches land where the (scaled) element list says.
        _act(env, action_type="open_app", app_name="Settings")
        _act(env, action_type="click", index=_index(env, ui.text_is("Network & internet")))
        assert ui.find(env.get_state().ui_elements, ui.text_is("Internet")) is not None
    finally:
        env.close()


def test_a_screen_taller_in_dp_shows_more_rows():
    rows = {
        name: _settings_rows(SimEnv(profile=name, render=False)) for name in sim_profile.SCREENS
    }
    assert rows["small"] < rows["default"]  # 760 dp tall vs 914 dp
    assert rows["landscape"] < rows["small"]  # 411 dp tall
    assert rows["large"] >= rows["small"]


def test_default_profile_is_the_pixel_6_exactly():
    plain, default = SimEnv(render=False), SimEnv(render=False, profile="default")
    for env in (plain, default):
        _act(env, action_type="open_app", app_name="Contacts")
    assert plain.get_state().ui_elements == default.get_state().ui_elements
    assert plain.phone.profile.is_default and default.phone.width == 1080


# ---- keyboard ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["small", "landscape"])
def test_a_field_under_the_keyboard_is_typed_into(name):
    env = SimEnv(profile=name, render=False)
    _act(env, action_type="open_app", app_name="Contacts")
    _act(env, action_type="click", index=_index(env, ui.text_is("Allow")))
    _act(env, action_type="click", index=_index(env, ui.desc_is("Create contact")))
    items = env.get_state().ui_elements
    email = ui.find(items, ui.hint_is("Email"))
    if email is None:  # landscape: the form scrolls as a whole
        _act(env, action_type="scroll", direction="down")
        email = _index(env, ui.hint_is("Email"))
    _act(env, action_type="input_text", index=email, text="ada@example.com")
    _act(env, action_type="click", index=_index(env, ui.hint_is("Email")))
    items = env.get_state().ui_elements
    field = next(e for e in items if e.hint_text == "Email")
    keys = [e.bbox_pixels.y_min for e in items if e.package_name == ui.IME_PACKAGE]
    assert field.text == "ada@example.com" and field.is_focused
    assert keys and field.bbox_pixels.y_max <= min(keys)  # above the keyboard, fully
    assert field.bbox_pixels.y_max - field.bbox_pixels.y_min >= 30


# ---- first-launch pop-ups ------------------------------------------------------------------


def test_popup_shows_once_per_app_and_per_task_and_closes_like_on_a_phone():
    env = SimEnv(profile="dialogs", render=False)
    _act(env, action_type="open_app", app_name="Clock")
    items = env.get_state().ui_elements
    close = ui.first_launch_popup(items)
    assert close is not None
    title = next(e.text for e in items if e.resource_name == "android:id/alertTitle")
    outside = (20, 400) if env.phone.width > 1000 else (5, 300)
    _act(env, action_type="click", x=outside[0], y=outside[1])  # a tap beside it: stays
    assert ui.first_launch_popup(env.get_state().ui_elements) is not None
    _act(env, action_type="click", index=close)
    assert ui.first_launch_popup(env.get_state().ui_elements) is None
    _act(env, action_type="navigate_home")
    _act(env, action_type="open_app", app_name="Clock")
    assert ui.first_launch_popup(env.get_state().ui_elements) is None  # once per app
    _act(env, action_type="open_app", app_name="Files")
    assert ui.first_launch_popup(env.get_state().ui_elements) is not None  # each app
    _act(env, action_type="navigate_back")  # Back closes it too
    assert ui.first_launch_popup(env.get_state().ui_elements) is None
    env.controller.close_recents()  # a new task: apps start fresh, as after a data reset
    _act(env, action_type="open_app", app_name="Clock")
    again = env.get_state().ui_elements
    assert any(e.text == title for e in again)
    assert SimEnv(render=False).phone.first_launch.enabled is False


# ---- vendor wording ------------------------------------------------------------------------


def test_vendor_wording_in_settings_and_buttons_and_the_oracle_still_finds_it():
    env = SimEnv(profile="vendor", render=False)
    _act(env, action_type="open_app", app_name="Settings")
    texts = [e.text for e in env.get_state().ui_elements if e.text]
    assert "Connections" in texts and "Network & internet" not in texts
    assert "Mobile, WLAN, hotspot" in texts
    _act(env, action_type="click", index=_index(env, ui.text_is("Network & internet")))
    _act(env, action_type="click", index=_index(env, ui.text_is("Internet")))
    items = env.get_state().ui_elements
    assert ui.find(items, ui.matching(desc="Wi-Fi", class_suffix="Switch")) is not None
    assert not any(e.content_description == "Wi-Fi" for e in items)
    _act(env, action_type="open_app", app_name="Contacts")
    _act(env, action_type="click", index=_index(env, ui.text_is("Allow")))
    _act(env, action_type="click", index=_index(env, ui.desc_is("Create contact")))
    texts = [e.text for e in env.get_state().ui_elements if e.text]
    assert "Done" in texts and "Save" not in texts
    assert ui.find(env.get_state().ui_elements, ui.text_is("Save")) is not None


def test_an_exact_label_wins_over_a_vendor_variant():
    from android_world.env.representation_utils import BoundingBox, UIElement

    box = BoundingBox(0, 300, 500, 600)
    items = [UIElement(text="Done", bbox_pixels=box), UIElement(text="Save", bbox_pixels=box)]
    assert ui.find(items, ui.text_is("Save")) == 1
    assert ui.find(items[:1], ui.text_is("Save")) == 0
    assert ui.find(items, ui.text_is("Done")) == 0
    assert ui.find([UIElement(text="Remove", bbox_pixels=box)], ui.text_is("Save")) is None


# ---- latency -------------------------------------------------------------------------------


# `slow`, with a settle time no busy machine reaches: only observations and waiting settle it.
SLOW = dataclasses.replace(sim_profile.parse("slow"), latency_seconds=3600.0)


def test_a_slow_screen_shows_transitional_frames_until_it_settles():
    env = SimEnv(profile=SLOW, render=False)
    home = env.get_state().ui_elements
    _act(env, action_type="open_app", app_name="Settings")
    first = env.get_state().ui_elements  # a pause of 0: the screen before the action
    assert first == home
    second = env.get_state().ui_elements
    assert second != first and ui.find(second, ui.text_is("Network & internet"), need_visible=False)
    settled = env.get_state(wait_to_stabilize=True).ui_elements
    assert settled != second and env.get_state().ui_elements == settled
    # Observing again and again gets there too; so does a `wait` action.
    _act(env, action_type="click", index=_index(env, ui.text_is("Network & internet")))
    frames = [env.get_state().ui_elements for _ in range(6)]
    assert all(a != b for a, b in itertools.pairwise(frames[:4]))
    assert frames[3] == frames[4] == frames[5]
    _act(env, action_type="navigate_back")
    _act(env, action_type="wait")
    assert env.get_state().ui_elements == env.get_state(wait_to_stabilize=True).ui_elements


def test_waiting_agents_see_the_settled_screen_and_pause_zero_does_not():
    from android_world.agents.random_agent import RandomAgent

    env = SimEnv(profile=SLOW, render=False)
    agent = RandomAgent(env, transition_pause=None)
    _act(env, action_type="open_app", app_name="Settings")
    state = agent.get_post_transition_state()
    assert ui.find(state.ui_elements, ui.text_is("Display")) is not None
    agent.transition_pause = 0.0
    _act(env, action_type="navigate_home")
    assert ui.find(agent.get_post_transition_state().ui_elements, ui.text_is("Display"))
    # The real `slow` settles after 0.5 s too: a fixed pause that long sees the new screen.
    timed = SimEnv(profile="slow", render=False)
    _act(timed, action_type="open_app", app_name="Settings")
    timed.get_state(wait_to_stabilize=True)
    _act(timed, action_type="navigate_home")
    paused = RandomAgent(timed, transition_pause=0.55)
    assert ui.find(paused.get_post_transition_state().ui_elements, ui.text_is("Display")) is None


# ---- the oracle under every profile --------------------------------------------------------


@pytest.mark.parametrize("profile", sim_profile.MATRIX)
@pytest.mark.slow
def test_oracle_solves_every_task_under_the_profile(profile):
    env = SimEnv(seed=0, render=False, profile=profile)
    agent = OracleAgent(env)
    failed, popups = {}, 0
    try:
        for name in sorted(REGISTRY):
            random.seed(7)
            params = REGISTRY[name].generate_random_params()
            params["seed"] = 7
            episode = suite_utils.run_task(REGISTRY[name](params), agent, print_fn=lambda *_: None)
            popups += sum(1 for s in episode["episode_data"].get("closed_popup", []) if s)
            if episode["is_successful"] != 1.0:
                failed[name] = episode["error"] or f"{episode['episode_length']} steps"
    finally:
        env.close()
    assert not failed, failed
    if "dialogs" in profile:
        assert popups >= 10  # the pop-ups really showed and were closed


def test_a_profile_that_costs_steps_gives_them_back_in_the_step_budget():
    scales = [sim_profile.SimProfile(screen_name=n).step_budget_scale for n in sim_profile.SCREENS]
    assert scales == [1.0, 1.2, 1.0, 2.2]  # default, small, large (891 dp), landscape (411 dp)
    assert sim_profile.parse("landscape,dialogs,slow").step_budget_scale == 2.2

    def budget(profile, name, **env_kw):
        env = SimEnv(render=False, profile=profile, **env_kw)
        task = make_task(name, 0)
        return suite_utils.step_budget(task, env)

    assert budget(None, "MarkorChangeNoteContent") == 12  # upstream's int(10 * 1.2)
    assert budget("landscape", "MarkorChangeNoteContent") == 27  # ceil(12 * 2.2)
    assert budget("small", "ExpenseDeleteDuplicates2") == 22  # ceil(18 * 1.2)
    assert budget("dialogs", "MarkorChangeNoteContent") == 13  # Markor's pop-up
    assert budget("landscape,dialogs", "MarkorChangeNoteContent") == 28
    assert budget("small,dialogs,vendor,slow", "MarkorCreateNoteAndSms") == 24  # 22 + 2 apps
    assert budget("dialogs", "SimpleSmsSendClipboardContent") == 13  # no Clipper in the sim
    assert budget("vendor,slow", "MarkorChangeNoteContent") == 12
    assert budget("landscape,dialogs", "MarkorChangeNoteContent", adjust_step_budget=False) == 12

    class Odd:  # an env that answers nonsense gets upstream's budget
        def __init__(self, answer):
            self.step_budget = lambda base, apps: answer

    task = make_task("MarkorChangeNoteContent", 0)
    for answer in (3, True, 12.5, "27", None, 10**6):
        assert suite_utils.step_budget(task, Odd(answer)) == 12
    assert suite_utils.step_budget(task, object()) == 12

    # Seed 9 (upstream's draw) puts the note far down a list that shows three rows: 10 fixed
    # actions leave two scrolls in upstream's 12 steps, which do not reach it; the scaled budget
    # does (17 steps).
    def run(**env_kw):
        env = SimEnv(seed=0, render=False, profile="landscape", **env_kw)
        try:
            return suite_utils.run_task(
                make_task("MarkorChangeNoteContent", 9), OracleAgent(env), print_fn=lambda *_: None
            )
        finally:
            env.close()

    strict = run(adjust_step_budget=False)
    assert (strict["step_budget"], strict["episode_length"], strict["is_successful"]) == (12, 12, 0)
    scaled = run()
    assert scaled["step_budget"] == 27 and scaled["is_successful"] == 1.0
    assert 12 < scaled["episode_length"] <= 17


def test_the_config_key_turns_the_adjustment_off():
    from android_world.harness import run as run_lib

    cfg = config_lib.CelilConfig.model_validate({"env": {"sim": {"profile": "landscape"}}})
    assert run_lib.make_env(cfg).step_budget_scale == 2.2
    cfg = config_lib.CelilConfig.model_validate(
        {"env": {"sim": {"profile": "landscape,dialogs", "adjust_step_budget": False}}}
    )
    env = run_lib.make_env(cfg)
    assert env.step_budget_scale == 1.0 and env.step_budget(12, ("markor",)) == 12
    assert SimEnv(render=False).step_budget(12, ("markor", "settings")) == 12


# ---- the matrix ------------------------------------------------------------------------------


def test_matrix_means_per_family_and_table_fits_80_columns():
    scores = {"SystemWifiTurnOn": 1.0, "SystemBluetoothTurnOff": 0.0, "ClockStopWatchRunning": 1.0}
    means = sim_profiles.family_means(scores, REGISTRY)
    assert means["system"] == 0.5 and means["clock"] == 1.0
    assert means["all"] == pytest.approx(2 / 3)
    columns = {p: means for p in sim_profile.MATRIX}
    table = sim_profiles.matrix_table(columns, {"system": 2, "clock": 1, "all": 3})
    assert "system (2)" in table and "P8 = small,dialogs,vendor,slow" in table
    assert max(len(line) for line in table.splitlines()) <= 80


def test_the_matrix_never_resumes_an_old_output_unless_asked(tmp_path):
    (tmp_path / "landscape").mkdir()
    with pytest.raises(SystemExit, match="holds an earlier run; remove it"):
        sim_profiles.run_profile("landscape", None, "offline", tmp_path, [])
