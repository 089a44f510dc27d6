"""Recipe and Tasks-app tasks: upstream's facts, oracles solve them in budget on seeds 0-2,
doing nothing fails, and plausible wrong work or answers fail."""

from __future__ import annotations

import datetime
import json

import pytest
from sim_task_support import make_task as make
from sim_task_support import prepared_task

from android_world.env.json_action import JSONAction
from android_world.env.sim.sim_env import SimEnv
from android_world.harness import checkpointer
from android_world.task_evals.single import recipe
from android_world.task_evals.single import recipe_data as rdata
from android_world.task_evals.single import tasks_app as tq

# Upstream's complexities (single/recipe.py; information_retrieval_registry.py).
UPSTREAM_COMPLEXITY = {
    "RecipeAddSingleRecipe": 2.4,
    "RecipeAddMultipleRecipes": 6,
    "RecipeDeleteSingleRecipe": 1,
    "RecipeDeleteSingleWithRecipeWithNoise": 2,
    "RecipeDeleteMultipleRecipes": 2.4,
    "RecipeDeleteMultipleRecipesWithNoise": 3.4,
    "RecipeDeleteMultipleRecipesWithConstraint": 4,
    "RecipeDeleteDuplicateRecipes": 1,
    "RecipeDeleteDuplicateRecipes2": 2.4,
    "RecipeDeleteDuplicateRecipes3": 3.4,
    "TasksDueOnDate": 1,
    "TasksHighPriorityTasks": 1,
    "TasksHighPriorityTasksDueOnDate": 1,
    "TasksDueNextWeek": 1.0,
    "TasksCompletedTasksForDate": 1,
    "TasksIncompleteTasksOnDate": 1,
}
TASKS = tuple(UPSTREAM_COMPLEXITY)
IR = tuple(t for t in TASKS if t.startswith("Tasks"))


@pytest.fixture(scope="module")
def env():
    sim = SimEnv(render=False)
    yield sim
    sim.close()


def started(env, name: str, seed: int = 4):
    task = make(name, seed)
    task.initialize_task(env)
    return task


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("name", TASKS)
def test_oracle_solves_within_budget_and_nothing_passes_untouched(env, name, seed):
    task = make(name, seed)
    task.initialize_task(env)
    try:
        # Upstream's zero-target instances (an ingredient no recipe uses): nothing to delete.
        nothing_to_do = not task.params.get(recipe.ROW_OBJECTS, [None])
        assert task.is_successful(env) == float(nothing_to_do), "doing nothing must fail"
        actions = []
        for action in task.oracle_actions(env):
            env.execute_action(action)
            actions.append(action)
        assert len(actions) <= int(10 * task.complexity)
        assert actions[-1].action_type == "status" and actions[-1].goal_status == "complete"
        if name in IR:
            assert actions[-2].action_type == "answer"
        assert task.is_successful(env) == 1.0
    finally:
        task.tear_down(env)


@pytest.mark.parametrize("name", TASKS)
def test_upstream_facts_and_reproducible_params(name):
    task = make(name, 7)
    assert type(task).complexity == UPSTREAM_COMPLEXITY[name]
    assert task.app_names == (("tasks",) if name in IR else ("broccoli app",))
    assert task.goal and "{" not in task.goal
    assert type(task).difficulty in ("easy", "medium", "hard") and type(task).tags
    json.dumps(checkpointer.to_jsonable(task.params))
    assert make(name, 7).params == task.params


def test_goals_are_upstreams():
    delete = make("RecipeDeleteMultipleRecipes", 1)
    titles = ", ".join(r["title"] for r in delete.params[recipe.ROW_OBJECTS])
    assert delete.goal == f"Delete the following recipes from Broccoli app: {titles}."
    assert make("RecipeDeleteDuplicateRecipes3", 1).goal == (
        "Delete all but one of any recipes in the Broccoli app that are exact duplicates,"
        " ensuring at least one instance of each unique recipe remains"
    )
    add = make("RecipeAddSingleRecipe", 1)
    assert add.goal.startswith("Add the following recipes into the Broccoli app:\n")
    due = make("TasksDueOnDate", 1)
    assert due.goal == (
        f"What tasks do I have due {due.params['date']} in Tasks app? Answer with the titles"
        " only. If there are multiples titles, format your answer in a comma separated list."
    )
    assert make("TasksDueNextWeek", 1).goal.startswith(
        "How many tasks do I have due next week in Tasks app? Assume the week starts from Monday."
    )


def test_recipe_text_forms_match_upstreams():
    row = recipe.random_recipe()
    csv = recipe.rows_as_text([row], "csv").splitlines()
    assert csv[0] == "title|description|servings|preparationTime|ingredients|directions"
    assert csv[1].split("|")[0] == row["title"]
    block = recipe.rows_as_text([row], "text_block")
    assert block.startswith(f"Recipe: {row['title']}\n description: {row['description']}\n")


# ---- recipe success rules ----------------------------------------------------------------------


def _delete(env, where: str, args=()) -> None:
    env.controller.sqlite_execute(recipe.DB, f"DELETE FROM recipes WHERE {where}", args)


def test_delete_tasks_fail_on_an_extra_or_a_missed_recipe(env):
    for name in ("RecipeDeleteMultipleRecipesWithNoise", "RecipeDeleteSingleWithRecipeWithNoise"):
        task = started(env, name)
        try:
            noise = task.params[recipe.NOISE_ROW_OBJECTS][0]["title"]
            targets = [r["title"] for r in task.params[recipe.ROW_OBJECTS]]
            _delete(env, "title = ?", (targets[0],))
            assert task.is_successful(env) == (1.0 if len(targets) == 1 else 0.0)
            for title in targets[1:]:
                _delete(env, "title = ?", (title,))
            assert task.is_successful(env) == 1.0
            _delete(env, "title = ?", (noise,))
            assert task.is_successful(env) == 0.0
        finally:
            task.tear_down(env)


def test_delete_without_noise_fails_when_the_target_is_edited_instead(env):
    task = started(env, "RecipeDeleteSingleRecipe")
    try:
        env.controller.sqlite_execute(recipe.DB, "UPDATE recipes SET favorite = 1")
        assert task.is_successful(env) == 0.0
    finally:
        task.tear_down(env)


def test_constraint_needs_every_recipe_using_the_ingredient(env):
    task = started(env, "RecipeDeleteMultipleRecipesWithConstraint", seed=5)
    try:
        uses = recipe.uses(task.params["ingredient"])
        rows = recipe.list_rows(env)
        targets = [r["recipeId"] for r in rows if uses(r)]
        assert targets, "the ingredient is used by some recipe (upstream may draw none)"
        for recipe_id in targets[1:]:
            _delete(env, "recipeId = ?", (recipe_id,))
        assert task.is_successful(env) == 0.0
        _delete(env, "recipeId = ?", (targets[0],))
        assert task.is_successful(env) == 1.0
    finally:
        task.tear_down(env)


def test_usable_ingredients_keep_upstreams_order_without_dead_ones():
    usable = recipe.usable_ingredients()
    assert "ghee" not in usable and "mayonnaise" not in usable and "garlic" in usable
    # Upstream's test compares the ingredient as written with lowercased directions.
    assert "Parmesan cheese" not in usable
    assert set(usable) < set(rdata.COMMON_INGREDIENTS)


def test_constraint_draws_upstreams_zero_target_instances():
    """An ingredient no recipe uses (as upstream tests it) gives no target: doing nothing is the
    answer, and deleting a recipe that mentions it in another case fails, as upstream's."""
    seen = set()
    for seed in range(40):
        params = make("RecipeDeleteMultipleRecipesWithConstraint", seed).params
        if params["ingredient"] in recipe.usable_ingredients():
            assert len(params[recipe.ROW_OBJECTS]) == 3
        else:
            assert params[recipe.ROW_OBJECTS] == []
        seen.add(bool(params[recipe.ROW_OBJECTS]))
    assert seen == {True, False}


@pytest.mark.parametrize("name", ["RecipeDeleteDuplicateRecipes", "RecipeDeleteDuplicateRecipes3"])
def test_duplicates_accept_either_copy_but_not_both_nor_a_look_alike(env, name):
    task = started(env, name)
    try:
        first, second = task.copy_ids
        _delete(env, "recipeId = ?", (second,))
        assert task.is_successful(env) == 1.0
        _delete(env, "recipeId = ?", (first,))
        assert task.is_successful(env) == 0.0
    finally:
        task.tear_down(env)
    task = started(env, name)
    try:
        target = task.params[recipe.ROW_OBJECTS][0]
        noise = [r for r in task.before if r["recipeId"] not in task.copy_ids]
        alike = [r for r in noise if r["title"] == target["title"]] or noise
        _delete(env, "recipeId = ?", (alike[0]["recipeId"],))  # keeps both copies
        assert task.is_successful(env) == 0.0
        _delete(env, "recipeId = ?", (task.copy_ids[0],))
        assert task.is_successful(env) == 0.0
    finally:
        task.tear_down(env)


def test_duplicate_noise_has_no_other_exact_copy():
    for seed in range(5):
        task = make("RecipeDeleteDuplicateRecipes3", seed)
        rows = task.params[recipe.NOISE_ROW_OBJECTS]
        target = task.params[recipe.ROW_OBJECTS][0]
        assert target not in rows
        assert all(rows.count(r) == 1 for r in rows)
        look_alikes = [
            r
            for r in rows
            if (r["title"], r["description"]) == (target["title"], target["description"])
        ]
        assert len(look_alikes) >= 6


def test_add_recipe_fails_with_a_wrong_field_or_twice(env):
    task = started(env, "RecipeAddSingleRecipe")
    try:
        wanted = dict(task.params[recipe.ROW_OBJECTS][0])
        recipe.add_rows(env, [{**wanted, "preparationTime": "9 hrs"}])
        assert task.is_successful(env) == 0.0
        env.controller.sqlite_execute(
            recipe.DB,
            "UPDATE recipes SET preparationTime = ? WHERE preparationTime = '9 hrs'",
            (wanted["preparationTime"],),
        )
        assert task.is_successful(env) == 1.0
        recipe.add_rows(env, [wanted])
        assert task.is_successful(env) == 0.0
    finally:
        task.tear_down(env)


# ---- Tasks questions -------------------------------------------------------------------------


def _score(env, task, answer: str) -> float:
    env.interaction_cache = answer
    return task.is_successful(env)


@pytest.mark.parametrize(
    "name",
    [
        "TasksDueOnDate",
        "TasksHighPriorityTasksDueOnDate",
        "TasksCompletedTasksForDate",
        "TasksIncompleteTasksOnDate",
        "TasksHighPriorityTasks",
    ],
)
def test_title_questions_need_exactly_the_right_titles(env, name):
    task = started(env, name)
    try:
        titles = [r["title"] for r in task.params["relevant"]]
        assert _score(env, task, ", ".join(reversed(titles))) == 1.0
        assert _score(env, task, ", ".join(titles).lower()) == 1.0
        rows = env.controller.sqlite_query(tq.DB, "SELECT title FROM tasks")
        others = [r["title"] for r in rows if r["title"] not in titles]
        assert _score(env, task, ", ".join([*titles, others[0]])) == 0.0
        if len(titles) > 1:
            assert _score(env, task, ", ".join(titles[1:])) == 0.0
        assert _score(env, task, others[0]) == 0.0
    finally:
        task.tear_down(env)


def test_due_next_week_counts_six(env):
    task = started(env, "TasksDueNextWeek")
    try:
        assert _score(env, task, "6") == 1.0
        assert _score(env, task, "5") == 0.0
        assert _score(env, task, "six") == 0.0  # upstream casts to a number
    finally:
        task.tear_down(env)


@pytest.mark.parametrize("name", IR)
def test_noise_cannot_change_the_answer(env, name):
    """Upstream's exclusion conditions: no random task meets all of them."""
    for seed in range(3):
        task = started(env, name, seed)
        try:
            fields = ("title", "dueDate", "hideUntil", "completed", "importance")
            relevant = [tuple(r[f] for f in fields) for r in task.params["relevant"]]
            rows = env.controller.sqlite_query(tq.DB, "SELECT * FROM tasks")
            noise = [r for r in rows if tuple(r[f] for f in fields) not in relevant]
            assert len(noise) == 20 and not any(task.excluded(r) for r in noise)
        finally:
            task.tear_down(env)


def test_a_high_priority_task_hidden_until_tonight_is_off_the_default_list(env):
    task = prepared_task("TasksHighPriorityTasks", 3)  # set-up keeps its prepared rows
    hidden = dict(task.params["relevant"][0])
    hidden["hideUntil"] = tq.ms_at(datetime.date(2023, 10, 15), "8:00pm")
    task.params["relevant"] = [hidden]
    task.initialize_task(env)
    try:
        env.execute_action(JSONAction(action_type="open_app", app_name="Tasks"))
        on_screen = [e.text for e in env.get_state().ui_elements]
        assert hidden["title"] not in on_screen
        env.execute_action(JSONAction(action_type="navigate_home"))
        for action in task.oracle_actions(env):
            env.execute_action(action)
        assert task.is_successful(env) == 1.0
    finally:
        task.tear_down(env)


def test_pools_draw_without_replacement():
    for seed in range(5):
        task = prepared_task("TasksDueNextWeek", seed)
        days = [tq.due_day(r) for r in task.params["relevant"]]
        assert len(set(days)) == 6 and task.params["due_date"] not in {
            d.strftime("%B %d %Y") for d in days
        }
        titles = [r["title"] for r in task.params["relevant"]]
        assert len(set(titles)) == 6 and task.params["title"] not in titles
