"""Broccoli (recipes) and Tasks (Tasks.org), driven through execute_action only."""

from __future__ import annotations

import datetime

import pytest

from android_world.env import device
from android_world.env.json_action import JSONAction
from android_world.env.sim.apps import broccoli
from android_world.env.sim.apps import tasks as tasks_app
from android_world.env.sim.sim_env import SimEnv
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.single import recipe
from android_world.task_evals.single import tasks_app as tq

UTC = datetime.UTC


@pytest.fixture
def env():
    sim = SimEnv(render=False)
    yield sim
    sim.close()


def act(env, **kw) -> None:
    env.execute_action(JSONAction(**kw))


def tap(env, match, long=False) -> None:
    index = ui.find(env.get_state().ui_elements, match)
    assert index is not None, "element not on screen"
    act(env, action_type="long_press" if long else "click", index=index)


def type_in(env, match, text) -> None:
    index = ui.find(env.get_state().ui_elements, match)
    assert index is not None, "field not on screen"
    act(env, action_type="input_text", index=index, text=text)


def texts(env) -> list[str]:
    return [e.text for e in env.get_state().ui_elements if e.text]


def card_titles(env) -> list[str]:
    return [
        e.text for e in env.get_state().ui_elements if e.resource_name == "card_text_view_title"
    ]


def recipe_row(title: str, **kw) -> dict:
    row = {
        "title": title,
        "description": "A quick and easy meal, perfect for busy weekdays.",
        "servings": "2 servings",
        "preparationTime": "20 mins",
        "source": "",
        "ingredients": "as needed",
        "directions": "Toast bread, top with mashed avocado.",
        "favorite": 0,
        "imageName": "",
    }
    return {**row, **kw}


# ---- app table ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "package"),
    [
        ("broccoli app", broccoli.PACKAGE),
        ("Broccoli recipe app", broccoli.PACKAGE),
        ("recipe app", broccoli.PACKAGE),
        ("tasks", tasks_app.PACKAGE),
        ("Tasks app", tasks_app.PACKAGE),
        ("tasks.org:", tasks_app.PACKAGE),
    ],
)
def test_upstream_app_names_open_the_apps(env, name, package):
    assert device.find_app(name).package == package
    act(env, action_type="open_app", app_name=name)
    assert env.foreground_activity_name.startswith(package + "/")


def test_home_screen_has_both_icons(env):
    env.reset(go_home=True)
    labels = {e.content_description for e in env.get_state().ui_elements}
    assert {"Broccoli", "Tasks"} <= labels


# ---- Broccoli --------------------------------------------------------------------------------


def test_recipe_list_is_sorted_without_regard_to_case_and_shows_card_text(env):
    recipe.clear(env)
    recipe.add_rows(
        env,
        [
            recipe_row("lentil soup"),
            recipe_row("Avocado Toast", source="grandma"),
            recipe_row("Beef Stir Fry"),
        ],
    )
    act(env, action_type="open_app", app_name="Broccoli")
    assert card_titles(env) == ["Avocado Toast", "Beef Stir Fry", "lentil soup"]
    assert "grandma" in texts(env)
    assert "A quick and easy meal, perfect for busy weekdays." in texts(env)


def test_new_recipe_form_saves_trimmed_fields_and_needs_a_title(env):
    recipe.clear(env)
    act(env, action_type="open_app", app_name="Broccoli")
    tap(env, ui.desc_is("New recipe"))
    tap(env, ui.desc_is("Save"))
    assert recipe.list_rows(env) == []  # "Please add a title."
    type_in(env, ui.hint_is("Title"), "Lentil Soup")
    type_in(env, ui.hint_is("Servings"), "2 servings")
    index = None
    for _ in range(3):
        index = ui.find(env.get_state().ui_elements, ui.hint_is("Directions"))
        if index is not None:
            break
        act(env, action_type="scroll", direction="down")
    act(env, action_type="input_text", index=index, text="Cook lentils.")
    tap(env, ui.desc_is("Save"))
    (row,) = recipe.list_rows(env)
    assert (row["title"], row["servings"], row["directions"]) == (
        "Lentil Soup",
        "2 servings",
        "Cook lentils.",  # the Enter the typing pressed is not kept
    )
    assert card_titles(env) == ["Lentil Soup"]


def test_delete_from_details_asks_first_and_cancel_keeps_the_recipe(env):
    recipe.clear(env)
    recipe.add_rows(env, [recipe_row("Lentil Soup"), recipe_row("Lentil Soup", servings="8")])
    act(env, action_type="open_app", app_name="Broccoli")
    tap(env, ui.text_is("Lentil Soup"))
    assert "2 servings" in texts(env) and "Directions" in texts(env)
    tap(env, ui.desc_is("More options"))
    tap(env, ui.text_is("Delete"))
    assert "Delete this recipe?" in texts(env)
    tap(env, ui.text_is("Cancel"))
    assert len(recipe.list_rows(env)) == 2
    tap(env, ui.desc_is("More options"))
    tap(env, ui.text_is("Delete"))
    tap(env, ui.matching(text="Delete", class_suffix="Button"))
    rows = recipe.list_rows(env)
    assert [r["servings"] for r in rows] == ["8"]  # only the opened copy went
    assert card_titles(env) == ["Lentil Soup"]


def test_search_filters_by_any_text_including_directions_and_back_clears_it(env):
    recipe.clear(env)
    recipe.add_rows(
        env,
        [
            recipe_row("Beef Stir Fry", directions="Stir-fry beef with broccoli."),
            recipe_row("Lentil Soup", directions="Cook lentils."),
        ],
    )
    act(env, action_type="open_app", app_name="Broccoli")
    tap(env, ui.desc_is("Search"))
    type_in(env, ui.hint_is("Search"), "broccoli")
    assert card_titles(env) == ["Beef Stir Fry"]
    act(env, action_type="navigate_back")
    assert card_titles(env) == ["Beef Stir Fry", "Lentil Soup"]


def test_edit_and_favorite_change_the_row(env):
    recipe.clear(env)
    recipe.add_rows(env, [recipe_row("Lentil Soup")])
    act(env, action_type="open_app", app_name="Broccoli")
    tap(env, ui.text_is("Lentil Soup"))
    tap(env, ui.desc_is("Mark as favorite"))
    tap(env, ui.desc_is("More options"))
    tap(env, ui.text_is("Edit"))
    act(
        env,
        action_type="input_text",
        index=ui.find(env.get_state().ui_elements, ui.hint_is("Title")),
        text="Red Lentil Soup",
        clear_text=True,
    )
    tap(env, ui.desc_is("Save"))
    (row,) = recipe.list_rows(env)
    assert (row["title"], row["favorite"]) == ("Red Lentil Soup", 1)


# ---- Tasks -------------------------------------------------------------------------------------

OCT = datetime.date(2023, 10, 1)


def task_row(title: str, day: int, **kw) -> dict:
    return tq.make_row(title, due=tq.ms_at(datetime.date(2023, 10, day), "11:00am"), **kw)


def listed(env) -> list[tuple[str, str, bool]]:
    items = env.get_state().ui_elements
    return [
        (items[i + 1].text, e.content_description, bool(e.is_checked))
        for i, e in enumerate(items)
        if e.resource_name == "completeBox"
    ]


@pytest.fixture
def seeded(env):
    tq.clear(env)
    tq.add_rows(
        env,
        [
            task_row("Water Plants", 17, importance=2),
            task_row("Call Grandma", 16, importance=0),
            task_row("Old report", 12, completed=tq.ms_at(OCT.replace(day=13))),
            task_row("Later thing", 20, hide_until=tq.ms_at(OCT.replace(day=18))),
        ],
    )
    act(env, action_type="open_app", app_name="Tasks")
    return env


def test_task_list_hides_done_and_not_yet_started_tasks_by_due_date(seeded):
    assert listed(seeded) == [
        ("Call Grandma", "High priority", False),
        ("Water Plants", "Low priority", False),
    ]
    assert "Mon, Oct 16, 11:00 AM" in texts(seeded)


def test_menu_shows_completed_under_a_header_and_hidden_tasks(seeded):
    tap(seeded, ui.desc_is("More options"))
    tap(seeded, ui.text_is("Show completed"))
    assert listed(seeded)[-1] == ("Old report", "Low priority", True)
    assert texts(seeded).index("Completed") < texts(seeded).index("Old report")
    tap(seeded, ui.desc_is("More options"))
    tap(seeded, ui.text_is("Show hidden"))
    assert "Later thing" in [t for t, _, _ in listed(seeded)]
    tap(seeded, ui.desc_is("More options"))
    assert "Hide completed" in texts(seeded) and "Hide hidden" in texts(seeded)


def test_sort_by_priority_and_alphabetically(seeded):
    tq.add_rows(seeded, [task_row("A high one", 25, importance=0)])
    tap(seeded, ui.desc_is("Sort"))
    tap(seeded, ui.text_is("Alphabetical"))
    assert [t for t, _, _ in listed(seeded)] == ["A high one", "Call Grandma", "Water Plants"]
    tap(seeded, ui.desc_is("Sort"))
    tap(seeded, ui.text_is("Priority"))
    assert [d for _, d, _ in listed(seeded)] == ["High priority", "High priority", "Low priority"]


def test_check_box_completes_a_task(seeded):
    tap(seeded, ui.desc_is("High priority"))
    rows = seeded.controller.sqlite_query(
        tasks_app.DB, "SELECT * FROM tasks WHERE title = ?", ("Call Grandma",)
    )
    assert rows[0]["completed"] == int(device.FROZEN_DEVICE_TIME.timestamp() * 1000)
    assert "Call Grandma" not in [t for t, _, _ in listed(seeded)]


def test_new_task_with_priority_and_due_date_then_delete(seeded):
    tap(seeded, ui.desc_is("Create new task"))
    type_in(seeded, ui.hint_is("Task name"), "Buy milk")
    tap(seeded, ui.text_is("High priority"))
    tap(seeded, ui.text_is("Due date"))
    tap(seeded, ui.text_is("Tomorrow"))
    tap(seeded, ui.desc_is("Save"))
    row = seeded.controller.sqlite_query(
        tasks_app.DB, "SELECT * FROM tasks WHERE title = 'Buy milk'"
    )[0]
    assert row["importance"] == 0
    assert tq.due_day(row) == datetime.date(2023, 10, 16)
    assert listed(seeded)[0] == ("Buy milk", "High priority", False)
    tap(seeded, ui.text_is("Buy milk"))
    tap(seeded, ui.desc_is("More options"))
    tap(seeded, ui.text_is("Delete"))
    tap(seeded, ui.matching(text="Delete", class_suffix="Button"))
    assert "Buy milk" not in [t for t, _, _ in listed(seeded)]
