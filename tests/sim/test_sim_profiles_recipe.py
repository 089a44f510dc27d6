"""Broccoli under the small and landscape profiles: the 7-field add form scrolls to the field
the keyboard would hide (a ScrollView's focus scroll, not a pan over a list that cannot move),
and the duplicate tasks' reference solutions fit their step budgets on a screen that shows
four cards. These failed before: "could not find Directions" at 720x1520, out of steps in
landscape."""

from __future__ import annotations

import random

import pytest

from android_world.agents.oracle_agent import OracleAgent
from android_world.env.json_action import JSONAction
from android_world.env.sim import SimEnv
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


@pytest.mark.parametrize("profile", ["small", "small,slow"])
def test_a_focused_form_field_scrolls_its_list_and_the_next_one_is_reachable(profile):
    env = SimEnv(profile=profile, render=False)
    try:
        _act(env, action_type="open_app", app_name="Broccoli")
        _act(env, action_type="click", index=_index(env, ui.desc_is("New recipe")))
        for hint in ("Title", "Description", "Servings", "Time", "Ingredients"):
            items = env.get_state(wait_to_stabilize=True).ui_elements
            index = ui.find(items, ui.hint_is(hint))
            if index is None:  # under the keyboard: scroll the form, as the oracle does
                _act(
                    env,
                    action_type="scroll",
                    direction="down",
                    index=_index(env, ui.res_is("recipe_form")),
                )
                index = _index(env, ui.hint_is(hint))
            _act(env, action_type="input_text", index=index, text=f"{hint} text")
        items = env.get_state(wait_to_stabilize=True).ui_elements
        field = next(e for e in items if e.hint_text == "Ingredients")
        keys = [e.bbox_pixels.y_min for e in items if e.package_name == ui.IME_PACKAGE]
        assert field.is_focused and keys and field.bbox_pixels.y_max <= min(keys)
        # The list moved, not the window: the app bar (Save) is still on screen.
        assert ui.find(items, ui.desc_is("Save")) is not None
        form = _index(env, ui.res_is("recipe_form"))
        _act(env, action_type="scroll", direction="down", index=form)
        directions = _index(env, ui.hint_is("Directions"))
        _act(env, action_type="input_text", index=directions, text="Stir well.")
        _act(env, action_type="click", index=_index(env, ui.desc_is("Save")))
        rows = env.controller.sqlite_query(
            "/data/data/com.flauschcode.broccoli/databases/broccoli",
            "SELECT ingredients, directions FROM recipes",
        )
        assert rows == [{"ingredients": "Ingredients text", "directions": "Stir well."}]
    finally:
        env.close()


@pytest.mark.parametrize(
    ("profile", "name"),
    [
        ("small", "RecipeAddSingleRecipe"),
        ("small,dialogs,vendor,slow", "RecipeAddSingleRecipe"),
        ("landscape", "RecipeDeleteDuplicateRecipes"),
        ("landscape", "RecipeDeleteDuplicateRecipes3"),
    ],
)
@pytest.mark.parametrize("seed", [3, 11])
def test_recipe_reference_solution_under_the_profile(profile, name, seed):
    env = SimEnv(seed=0, render=False, profile=profile)
    try:
        random.seed(seed)
        params = REGISTRY[name].generate_random_params()
        params["seed"] = seed
        task = REGISTRY[name](params)
        episode = suite_utils.run_task(task, OracleAgent(env), print_fn=lambda *_: None)
    finally:
        env.close()
    assert episode["is_successful"] == 1.0, episode["error"] or episode["episode_length"]
    assert episode["episode_length"] <= int(10 * task.complexity)


def test_a_scroll_that_stops_short_marks_the_list_end_and_look_alikes_do_not_fool_it():
    from android_world.task_evals.single.recipe import stopped_short

    a, b, c = ("A", "x"), ("B", "x"), ("C", "x")
    before = [(a, 267), (b, 475), (c, 683), (c, 891)]
    assert not stopped_short(before, [(c, 351), (c, 559)], drag=540)  # c at 891 came up 540
    assert stopped_short(before, [(b, 268), (c, 476), (c, 684)], drag=540)  # only 207
    same = [(c, 267), (c, 475), (c, 683), (c, 891)]
    assert not stopped_short(same, [(c, 351), (c, 559)], drag=540)  # cannot tell: scroll on


def test_offset_showing_moves_a_list_just_enough_to_show_the_field():
    from android_world.env.sim import layout
    from android_world.env.sim import widgets as w

    def form():
        fields = [
            w.text_field("", lambda _: None, hint=f"f{i}", key=f"f{i}", h=100) for i in range(8)
        ]
        return w.scroll_list("form", *fields, gap=20)

    view = (0, 0, 500, 300)  # 2.5 fields tall; fields every 120 px
    assert layout.offset_showing(form(), "f1", view, 0, {}) == 0  # already in view
    assert layout.offset_showing(form(), "f5", view, 0, {}) == 5 * 120 + 100 + 24 - 300
    assert layout.offset_showing(form(), "f0", view, 400, {}) == 0  # above: up to it
    assert layout.offset_showing(form(), "nope", view, 70, {}) == 70


@pytest.mark.parametrize(
    ("profile", "name", "seed"),
    [
        # Three look-alike groups on one screen: the last group of two is the pair, deleted
        # without opening both (10 steps: out of steps before).
        ("default", "RecipeDeleteDuplicateRecipes", 54),
        ("default", "RecipeDeleteDuplicateRecipes", 58),
        # The same deduction after a scan of the whole list (24 steps).
        ("default", "RecipeDeleteDuplicateRecipes2", 54),
        # Said "complete" with nothing deleted before.
        ("landscape", "RecipeDeleteDuplicateRecipes2", 47),
    ],
)
def test_recipe_duplicates_that_the_oracle_missed_before(profile, name, seed):
    env = SimEnv(seed=0, render=False, profile=profile)
    try:
        random.seed(seed)
        params = REGISTRY[name].generate_random_params()
        params["seed"] = seed
        episode = suite_utils.run_task(
            REGISTRY[name](params), OracleAgent(env), print_fn=lambda *_: None
        )
    finally:
        env.close()
    assert episode["is_successful"] == 1.0, episode["error"] or episode["episode_length"]
    assert episode["episode_length"] <= episode["step_budget"]


def test_list_shift_is_the_one_small_move_that_maps_cards_before_onto_after():
    from android_world.task_evals.single.recipe import list_shift

    before = [267, 475, 683, 891]  # look-alike cards, 208 px apart
    assert list_shift(before, [319, 527, 735, 943]) == 52
    assert list_shift(before, [267, 475, 683, 891]) == 0  # did not move: the list's top
    assert list_shift(before, [300, 508, 716]) == 33
    assert list_shift(before, []) == 0
