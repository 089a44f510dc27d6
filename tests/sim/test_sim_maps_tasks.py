"""Upstream's OsmAnd, OpenTracks (SportsTracker*) and Joplin (Notes*) templates: upstream's facts and
draws, success rules both ways against the device facts, and the oracles within budget."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from sim_task_support import REGISTRY
from sim_task_support import make_task as make

from android_world.env.device_facts import joplin as joplin_facts
from android_world.env.device_facts import open_tracks as tracks_facts
from android_world.env.device_facts import osmand as osm_facts
from android_world.env.json_action import JSONAction
from android_world.env.sim.sim_env import SimEnv
from android_world.harness import checkpointer
from android_world.task_evals import upstream_draws
from android_world.task_evals.single import joplin_data, osmand
from android_world.task_evals.single import joplin_notes as notes
from android_world.task_evals.single import sports_tracker as sports

# Upstream's complexities: single/osmand.py and the textproto's (an instance's, see research).
UPSTREAM_COMPLEXITY = {
    "OsmAndFavorite": 1.3,
    "OsmAndMarker": 2.0,
    "OsmAndTrack": 12,
    "SportsTrackerActivitiesOnDate": 2,
    "SportsTrackerActivitiesCountForWeek": 1,
    "SportsTrackerActivityDuration": 1,
    "SportsTrackerLongestDistanceActivity": 1,
    "SportsTrackerTotalDurationForCategoryThisWeek": 1,
    "SportsTrackerTotalDistanceForCategoryOverInterval": 2,
    "NotesRecipeIngredientCount": 1,
    "NotesMeetingAttendeeCount": 1,
    "NotesIsTodo": 1,
    "NotesTodoItemCount": 1,
}
TASKS = tuple(UPSTREAM_COMPLEXITY)
APPS = {"OsmAnd": ("osmand",), "Sports": ("open tracks sports tracker",), "Notes": ("joplin",)}


@pytest.fixture(scope="module")
def env():
    sim = SimEnv(render=False)
    yield sim
    sim.close()


def started(env, name: str, seed: int = 3):
    task = make(name, seed)
    task.initialize_task(env)
    return task


def answer(env, task, text: str) -> float:
    env.execute_action(JSONAction(action_type="answer", text=text))
    return task.is_successful(env)


@pytest.mark.parametrize("name", TASKS)
def test_upstream_facts_and_reproducible_params(name):
    task = make(name, 7)
    assert type(task).complexity == UPSTREAM_COMPLEXITY[name]
    assert task.app_names == next(v for k, v in APPS.items() if name.startswith(k))
    assert task.goal and "{" not in task.goal
    json.dumps(checkpointer.to_jsonable(task.params))
    assert make(name, 7).params == task.params


def test_draws_and_set_up_rows_are_upstreams():
    """Every recorded draw of the 13 (seeds 0, 1, 30 x 3) is upstream's; the OpenTracks
    questions' set-up rows (own and noise, shuffled) are upstream's too."""
    mine = {n: c for n, c in REGISTRY.items() if n in UPSTREAM_COMPLEXITY}
    comparison = upstream_draws.compare(mine)
    assert (comparison.matched, comparison.compared) == (117, 117)
    assert (comparison.init_matched, comparison.init_compared) == (54, 54)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("name", TASKS)
def test_oracle_solves_within_budget_and_nothing_passes_untouched(env, name, seed):
    task = make(name, seed)
    task.initialize_task(env)
    try:
        assert task.is_successful(env) == 0.0, "doing nothing must fail"
        actions = []
        for action in task.oracle_actions(env):
            env.execute_action(action)
            actions.append(action)
        assert len(actions) <= int(10 * task.complexity)
        assert actions[-1].action_type == "status" and actions[-1].goal_status == "complete"
        assert task.is_successful(env) == 1.0
    finally:
        task.tear_down(env)


# ---- OsmAnd ------------------------------------------------------------------------------------


def _favorites(env, *points: osm_facts.Waypoint) -> None:
    env.controller.write_file(osm_facts.FAVORITES_PATH, osm_facts.favorites_gpx(points))


def test_favorite_near_the_place_or_named_for_it_passes_elsewhere_fails(env):
    task = make("OsmAndFavorite", 0)
    _favorites(env, osm_facts.Waypoint(47.0, 9.0, "stale"))
    env.controller.write_file(osm_facts.LEGACY_FAVORITES_PATH, osm_facts.favorites_gpx([]))
    env.controller.write_file(f"{osm_facts.BACKUP_DIR}/favorites_1.gpx", b"x")
    task.initialize_task(env)
    try:
        assert osm_facts.read_waypoints(env.controller.read_file(osm_facts.FAVORITES_PATH)) == []
        assert env.controller.list_dir(osm_facts.BACKUP_DIR) == []
        location = task.params["location"]
        lat, lon = osmand.location_coords(location)
        _favorites(env, osm_facts.Waypoint(lat + 0.0011, lon, "near"))
        assert task.is_successful(env) == 0.0
        _favorites(env, osm_facts.Waypoint(lat + 0.0009, lon - 0.0009, "near"))
        assert task.is_successful(env) == 1.0
        _favorites(env, osm_facts.Waypoint(0.0, 0.0, f"My {location}"))
        assert task.is_successful(env) == 1.0  # upstream: the name holds the location
        env.controller.write_file(osm_facts.FAVORITES_PATH, b"<gpx")
        assert task.is_successful(env) == 0.0
    finally:
        task.tear_down(env)


def test_marker_rule_reads_the_markers_table(env):
    task = make("OsmAndMarker", 2)
    env.controller.sqlite_execute(osm_facts.MARKERS_DB, osm_facts.MARKERS_SCHEMA)
    lat, lon = osmand.location_coords(task.params["location"])
    row = osm_facts.marker_row("m1", lat, lon, "x", 0)
    insert = f"INSERT INTO map_markers ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})"
    env.controller.sqlite_execute(osm_facts.MARKERS_DB, insert, tuple(row.values()))
    task.initialize_task(env)
    try:
        assert task.is_successful(env) == 0.0  # set-up cleared the old marker
        wrong = osm_facts.marker_row("m2", lat, lon + 0.002, "x", 0)
        env.controller.sqlite_execute(osm_facts.MARKERS_DB, insert, tuple(wrong.values()))
        assert task.is_successful(env) == 0.0
        env.controller.sqlite_execute(osm_facts.MARKERS_DB, insert, tuple(row.values()))
        assert task.is_successful(env) == 1.0
    finally:
        task.tear_down(env)


def test_track_must_pass_the_waypoints_in_order(env):
    task = make("OsmAndTrack", 5)
    env.controller.write_file(f"{osm_facts.TRACKS_DIR}/old.gpx", b"x")
    task.initialize_task(env)
    try:
        assert env.controller.list_dir(osm_facts.TRACKS_DIR) == []
        points = [osmand.location_coords(w) for w in task.params["waypoints"]]
        path = f"{osm_facts.TRACKS_DIR}/t.gpx"
        env.controller.write_file(path, osm_facts.track_gpx("t", points[::-1]))
        assert task.is_successful(env) == 0.0
        between = [(47.0, 9.0), points[0], (47.3, 9.7), *points[1:]]
        env.controller.write_file(path, osm_facts.track_gpx("t", between))
        env.controller.write_file(f"{osm_facts.TRACKS_DIR}/broken.gpx", b"<gpx")
        assert task.is_successful(env) == 1.0
    finally:
        task.tear_down(env)
    short = type(task)({"waypoints": ["Schaan, Liechtenstein"]})
    with pytest.raises(ValueError):
        _ = short.goal
    assert osmand.track_passes([(1.0, 1.0), (2.0, 2.0)], [(2.0, 2.0), (1.0, 1.0)]) is False


def test_location_strings_are_upstreams():
    assert osmand.parse_coords("47.1973857, 9.5430636") == (47.1973857, 9.5430636)
    assert osmand.parse_coords("Schaan, Liechtenstein") is None
    assert osmand.result_title("47.1973857, 9.5430636") == "47.19739, 9.54306"
    assert osmand.result_title("Schönberg, Liechtenstein") == "Schönberg"
    assert make("OsmAndTrack", 1).params["track_name"].endswith(", Liechtenstein")


# ---- OpenTracks ----------------------------------------------------------------------------------


def _rows(env) -> list[dict]:
    return env.controller.sqlite_query(tracks_facts.DB, "SELECT * FROM tracks")


def test_activity_questions_seed_upstreams_rows_and_score_answers(env):
    task = started(env, "SportsTrackerActivitiesCountForWeek")
    try:
        rows = _rows(env)
        assert len(rows) == 22
        category = task.params["category"]
        this_week = [
            r
            for r in rows
            if category in r["category"] and sports._in(sports.start_day(r), sports.WEEK)
        ]
        assert len(this_week) == 2  # the noise never adds one: it is drawn again
        assert answer(env, task, "2") == 1.0 and answer(env, task, "3") == 0.0
        assert answer(env, task, "two") == 0.0
    finally:
        task.tear_down(env)
    assert _rows(env) == []


def test_distances_are_stored_as_upstream_rounds_them_and_answers_have_ten_metres(env):
    task = started(env, "SportsTrackerLongestDistanceActivity")
    try:
        (longest,) = task.expected()
        assert longest == sports.meters_as_shown(float(task.params["distance"]))
        assert answer(env, task, str(longest + 9)) == 1.0
        assert answer(env, task, str(longest + 10)) == 0.0
        shown = tracks_facts.format_distance(longest, tracks_facts.IMPERIAL)
        assert round(float(shown.split()[0]) * tracks_facts.MILES_TO_METERS) == longest
    finally:
        task.tear_down(env)
    assert sports.meters_as_shown(500) == 499


def test_activities_on_date_answers_the_types_in_any_order(env):
    task = started(env, "SportsTrackerActivitiesOnDate")
    try:
        first, second = task.expected()
        assert answer(env, task, f"{second}, {first}") == 1.0
        assert answer(env, task, first) == 0.0
        env.interaction_cache = ""
        assert task.is_successful(env) == 0.0
    finally:
        task.tear_down(env)


# ---- Joplin ---------------------------------------------------------------------------------------


def test_note_questions_write_notebooks_notes_and_search_copies(env):
    task = started(env, "NotesTodoItemCount")
    try:
        folder = task.params["folder"]
        notes_rows = env.controller.sqlite_query(joplin_facts.DB, "SELECT * FROM notes")
        copies = env.controller.sqlite_query(joplin_facts.DB, "SELECT * FROM notes_normalized")
        assert len(notes_rows) == len(copies) == 103
        ids = {
            f["title"]: f["id"]
            for f in env.controller.sqlite_query(joplin_facts.DB, "SELECT * FROM folders")
        }
        todos = [r for r in notes_rows if r["parent_id"] == ids[folder] and r["is_todo"]]
        assert len(todos) == 3 and not any(r["todo_completed"] for r in todos)
        assert answer(env, task, "3") == 1.0 and answer(env, task, "4") == 0.0
    finally:
        task.tear_down(env)
    assert env.controller.sqlite_query(joplin_facts.DB, "SELECT * FROM folders") == []


def test_the_same_draw_writes_the_same_note_ids(env):
    """The notebook list breaks ties (equal titles and times) by id: random uuid4 ids made the
    rows of one draw come in another order on every run, and an agent's count with them."""

    def rows() -> list[dict]:
        task = started(env, "NotesTodoItemCount")
        try:
            return env.controller.sqlite_query(
                joplin_facts.DB, "SELECT id, parent_id, title FROM notes ORDER BY title, id"
            )
        finally:
            task.tear_down(env)

    first = rows()
    assert first == rows()
    assert len({r["id"] for r in first}) == len(first)  # still one id per note


def test_is_todo_and_ingredient_answers(env):
    task = started(env, "NotesIsTodo")
    try:
        truth = task.params["is_todo"]
        other = "False" if truth == "True" else "True"
        assert answer(env, task, truth.lower()) == 1.0 and answer(env, task, other) == 0.0
        (row,) = env.controller.sqlite_query(
            joplin_facts.DB, "SELECT * FROM notes WHERE title = ?", (task.params["title"],)
        )
        assert row["is_todo"] == (truth == "True")
    finally:
        task.tear_down(env)
    recipe = started(env, "NotesRecipeIngredientCount")
    try:
        quantity = recipe.params["ingredient_quantity"]
        assert f"{quantity} {recipe.params['ingredient']}" in recipe.params["body"]
        assert answer(env, recipe, quantity) == 1.0 and answer(env, recipe, "5 cups") == 0.0
    finally:
        recipe.tear_down(env)


def test_meeting_notes_upstream_samples_at_import_are_the_same_every_run():
    meetings = dict(joplin_data.NOTEBOOKS["Meeting Notes"])
    body = meetings["Project Kickoff"]
    assert body.startswith("Attendees:\n") and "\nAgenda:\n" in body
    assert len(body.split("Action Items:\n")[1].split("\n")) == 3
    code = (
        "from android_world.task_evals.single import joplin_data as j;"
        "print(dict(j.NOTEBOOKS['Meeting Notes'])['Project Kickoff'])"
    )
    other = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "123"},
    )
    assert other.stdout == body + "\n"


def test_noise_notes_never_meet_every_exclusion():
    task = make("NotesIsTodo", 4)
    task.prepare()
    noise, folders = task.noise_and_folders()
    assert len(noise) == notes.N_NOISE and set(folders) <= set(joplin_data.NOTEBOOKS)
    assert not any(n["title"].lower() == task.params["title"].lower() for n in noise)
