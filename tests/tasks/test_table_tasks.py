"""The table-task shapes Pro Expense and Broccoli share (single/table_tasks.py): the seeding
guards catch params that would make the check meaningless, in both apps alike, and rows go in
with ids in list order (the delete tasks find their targets by that order)."""

from __future__ import annotations

import pytest
from sim_task_support import make_task

from android_world.env.sim import SimEnv
from android_world.task_evals.single import expense, recipe
from android_world.task_evals.single.table_tasks import NOISE_ROW_OBJECTS, ROW_OBJECTS


@pytest.fixture
def env() -> SimEnv:
    return SimEnv(seed=0, render=False)


@pytest.mark.parametrize(
    "name", ["ExpenseDeleteMultiple", "RecipeDeleteMultipleRecipes", "RecipeDeleteSingleRecipe"]
)
def test_delete_task_refuses_a_target_missing_from_params(env, name):
    task = make_task(name, 3)
    task.params[ROW_OBJECTS] = task.params[ROW_OBJECTS][:-1]  # one target fewer than n_rows
    with pytest.raises(RuntimeError, match=f"{name}: .* targets, not .* with {task.n_rows}"):
        task.initialize_task(env)


@pytest.mark.parametrize("name", ["ExpenseDeleteDuplicates", "RecipeDeleteDuplicateRecipes"])
def test_duplicate_task_refuses_unequal_copies(env, name):
    task = make_task(name, 1)
    first, second = task.params[ROW_OBJECTS]
    key = "name" if name.startswith("Expense") else "title"
    task.params[ROW_OBJECTS] = [first, {**second, key: second[key] + " (other)"}]
    with pytest.raises(ValueError, match="must be equal"):
        task.initialize_task(env)


@pytest.mark.parametrize("name", ["ExpenseDeleteDuplicates", "RecipeDeleteDuplicateRecipes"])
def test_duplicate_task_refuses_an_unexpected_noise_count(env, name):
    task = make_task(name, 1)
    task.params[NOISE_ROW_OBJECTS] = task.params[NOISE_ROW_OBJECTS][:-1]
    with pytest.raises(RuntimeError, match="rows seeded, not"):
        task.initialize_task(env)


@pytest.mark.parametrize(
    ("module", "key", "name_field"),
    [(expense, "expense_id", "name"), (recipe, "recipeId", "title")],
)
def test_rows_are_inserted_in_list_order_and_found_as_targets(env, module, key, name_field):
    name = "ExpenseDeleteMultiple2" if module is expense else "RecipeDeleteMultipleRecipesWithNoise"
    task = make_task(name, 2)
    task.initialize_task(env)
    rows = module.list_rows(env)
    wanted = task.params[NOISE_ROW_OBJECTS] + task.params[ROW_OBJECTS]
    assert [r[name_field] for r in rows] == [w[name_field] for w in wanted]
    assert [r[key] for r in rows] == sorted(r[key] for r in rows)
    targets = {r[key] for r in rows[-task.n_rows :]}
    assert task.target_ids == targets
    task.tear_down(env)
    assert module.list_rows(env) == []
