"""Goal abstraction and retrieval against the real goals of every sim task, under several seeds.

Memory must help later goals and never poison them: every goal round-trips through its template,
goals of one task share one template, a stored plan comes back filled with the NEW goal's values
and nothing of the old goal's, and no task retrieves another task's plan unless both goals really
have the same template.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest

from android_world.agents.custom.memory.celil_episodic import (
    EpisodicMemory,
    abstract_goal,
    app_mentions,
    instantiate,
    read_goal,
)
from android_world.agents.custom.offline_roles import offline, offline_text
from android_world.task_evals.registry import TaskRegistry

SEEDS = range(6)

# Tasks whose parameters change the goal's wording, not only its values: the number of
# templates their goals may take, and why.
VARIABLE_SHAPE = {
    # The app to open is the parameter, and app names stay literal (the app decides the plan).
    "OpenAppTaskEval": 6,
    "TurnOnWifiAndOpenApp": 6,
    # The expense (recipes) is written either as a text block or as a csv table.
    "ExpenseAddSingle": 2,
    "RecipeAddSingleRecipe": 2,
    "RecipeAddMultipleRecipes": 2,
    # The ingredient is a plain noun ("tuna", "Parmesan cheese"): no slot rule can tell it from
    # the wording, so each ingredient is a template of its own.
    "RecipeDeleteMultipleRecipesWithConstraint": 6,
    "ExpenseAddMultiple": 2,
    # The preparation time's unit is a word ("10 mins", "2 hrs"): the number is a slot, the
    # unit stays literal.
    "RecipeAddMultipleRecipesFromMarkor2": 2,
    # The text to copy is free-form: "Acme Corp, Suite 200" reads as a list, "Order No: A1"
    # as a label and its value.
    "SystemCopyToClipboard": 3,
    # "Add to the top/bottom of the note ..." or "Replace the text with ...".
    "MarkorEditNote": 2,
    # The note's text is one of upstream's sentences, free-form: "Hello, World!" reads as a
    # list of two texts.
    "MarkorCreateNote": 2,
    "MarkorCreateNoteAndSms": 2,
    # "recurs daily" or "recurs weekly": the repetition is a word the plan acts on.
    "SimpleCalendarAddRepeatingEvent": 2,
    # Upstream words a question's date as a person would: "October 16", "this Monday", "the
    # Monday after next"; "this" and "after next" stay literal around the date slot.
    "SimpleCalendarAnyEventsOnDate": 3,
    "SimpleCalendarEventOnDateAtTime": 3,
    "SimpleCalendarEventsInTimeRange": 3,
    "SimpleCalendarFirstEventAfterStartTime": 3,
    # The event's title is unquoted in upstream's goal, so its words shape the template.
    "SimpleCalendarLocationOfEvent": 30,
    # A place is named ("Schaan, Liechtenstein") or given as coordinates; a track has 2-4 places.
    "OsmAndFavorite": 2,
    "OsmAndMarker": 2,
    "OsmAndTrack": 3,
    # The activity's category and the recipe's ingredient are unquoted nouns ("mountain biking",
    # "almond flour"): each is a template of its own.
    "SportsTrackerActivitiesCountForWeek": 6,
    "SportsTrackerActivityDuration": 6,
    "SportsTrackerLongestDistanceActivity": 6,
    "SportsTrackerTotalDurationForCategoryThisWeek": 6,
    "SportsTrackerTotalDistanceForCategoryOverInterval": 6,
    "NotesRecipeIngredientCount": 6,
    # 2-5 songs: each length of the list is a template of its own.
    "RetroCreatePlaylist": 4,
    "RetroSavePlaylist": 4,
    # ... and in the queue goal the unquoted song titles' words shape the template too.
    "RetroPlayingQueue": 6,
}
APP_PARAMETER_TASKS = ("OpenAppTaskEval", "TurnOnWifiAndOpenApp")


@pytest.fixture(scope="module")
def goals() -> dict[str, list[str]]:
    """Each sim task's goal for each seed, drawn the way the suite draws parameters."""
    registry = TaskRegistry().get_registry("sim")
    state = random.getstate()
    out: dict[str, list[str]] = {}
    try:
        for name, cls in sorted(registry.items()):
            out[name] = []
            for seed in SEEDS:
                random.seed(seed)
                out[name].append(cls(cls.generate_random_params()).goal)
    finally:
        random.setstate(state)
    return out


def _all(goals: dict[str, list[str]]) -> Iterator[tuple[str, str]]:
    for task, task_goals in goals.items():
        for goal in task_goals:
            yield task, goal


def test_the_suite_is_big_and_its_goals_vary(goals):
    assert len(goals) >= 30
    varying = [t for t, g in goals.items() if len(set(g)) > 1]
    assert len(varying) >= 15, varying  # otherwise the properties below prove little


def test_every_goal_round_trips(goals):
    for task, goal in _all(goals):
        got = abstract_goal(goal)
        assert instantiate(got.template, got.slots) == goal, task


def test_goals_of_one_task_share_one_template(goals):
    for task, task_goals in goals.items():
        templates = {abstract_goal(g).template for g in task_goals}
        limit = VARIABLE_SHAPE.get(task, 1)
        assert len(templates) <= limit, (task, templates)


def test_app_parameter_tasks_differ_only_in_the_app(goals):
    for task in APP_PARAMETER_TASKS:
        shapes = set()
        for goal in goals[task]:
            template = abstract_goal(goal).template
            for mention in reversed([m for m in app_mentions(template) if m.named]):
                template = template[: mention.start] + "<app>" + template[mention.end :]
            shapes.add(template)
        assert len(shapes) == 1, (task, shapes)


def _synthetic_plan(goal: str) -> list[str]:
    """A plan that states every value of its goal: what a planner writes for a form-like task."""
    plan = ["Open the app"]
    for slot in abstract_goal(goal).slots.values():
        if slot.type != "toggle":
            plan.append(f"Enter '{slot.value}'")
        elif slot.value in ("top", "bottom"):
            plan.append(f"Go to the {slot.value} of the note")
        else:
            plan.append(f"Set it {slot.value}.")
    return plan


@pytest.mark.slow
def test_no_task_retrieves_another_tasks_plan_unless_the_templates_are_the_same(goals, tmp_path):
    memory = EpisodicMemory(tmp_path / "memory.db")
    owner: dict[str, str] = {}
    for task, task_goals in goals.items():
        entry_id = memory.add_successful_plan(task_goals[0], _synthetic_plan(task_goals[0]))
        assert entry_id, (task, memory.warnings[-1:])
        owner.setdefault(entry_id, task)
    entries = memory.entries()
    reused = 0
    for task, task_goals in goals.items():
        for goal in task_goals[1:]:
            wanted = abstract_goal(goal)
            usable = [m for m in memory.rank(goal, entries=entries) if m.usable]
            for match in usable:
                if owner[match.entry.id] != task:
                    assert match.entry.goal_template == wanted.template, (task, goal, match)
            if task in VARIABLE_SHAPE:
                continue
            if read_goal(goal).meaning.states != read_goal(task_goals[0]).meaning.states:
                # "Wednesday" vs "October 18": one template, but only one reads today's date
                # first, so the plan for the other is not offered.
                assert not [m for m in usable if owner[m.entry.id] == task], (task, goal)
                continue
            # The same task's plan comes back, filled with this goal's values.
            assert usable, (task, goal)
            assert usable[0].plan == _synthetic_plan(goal), (task, goal)
            reused += 1
    assert reused >= 100


_WORD = re.compile(r"[A-Za-z0-9][\w'+\-.]*[A-Za-z0-9]|\d")


def _stale(example: str, goal: str, plan: list[str]) -> list[str]:
    """Values of the example goal absent from the new goal that the plan still carries, judged
    by the offline planner's own goal parser and by the example's capitalised or numeric words."""
    text = " | ".join(plan)
    old = offline_text.parse_goal(example).slot_values()
    new = offline_text.parse_goal(goal).slot_values()
    found = [v for v in old if v not in new and len(v) > 2 and v in text]
    new_words = {w.lower() for w in _WORD.findall(goal)}
    for word in _WORD.findall(example):
        value_like = word[0].isupper() or any(c.isdigit() for c in word)
        fresh = word.lower() not in new_words
        if value_like and fresh and re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text):
            found.append(word)
    return found


@pytest.mark.slow
def test_real_plans_come_back_with_the_new_values_and_none_of_the_old(goals, tmp_path):
    """Plans written by the offline planner for one seed, retrieved for the other seeds."""
    hits = refused = 0
    for task, task_goals in goals.items():
        memory = EpisodicMemory(tmp_path / f"{task}.db")
        example = task_goals[0]
        plan, _ = offline.build_plan(offline_text.parse_goal(example))
        if not memory.add_successful_plan(example, plan):
            refused += 1
            assert "not stored" in memory.warnings[-1]
            continue
        for goal in task_goals[1:]:
            hit = memory.find_similar_task(goal)
            if hit is None:
                continue
            hits += 1
            assert not _stale(example, goal, hit.plan), (task, goal, hit.plan)
            assert not any("{" in step for step in hit.plan), (task, hit.plan)
    # Measured: 175 hits over 39 tasks x 5 seeds, 1 plan refused (a planner quoting half a value).
    assert hits >= 120 and refused <= 3, (hits, refused)
