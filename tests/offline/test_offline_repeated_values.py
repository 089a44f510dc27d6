"""Two records that share a value ("Utilities" twice): the screen's signature leaves typed text
out, so a form looks the same after typing. Typing that took must not be counted a dud, or the
second record's empty form never gets the same name typed (ExpenseAddMultiple, task seed 2)."""

from __future__ import annotations

from android_world.agents.custom.offline_roles import offline
from android_world.agents.custom.roles.celil_perception import PerceptionModule
from android_world.env.sim.sim_env import SimEnv
from android_world.task_evals.single import expense as ex

GOAL = (
    "Add the following expenses into the pro expense:\n"
    "Expense: Utilities\n amount_dollars: $151.08\n category_name: Housing\n note: A need\n\n"
    "Expense: Utilities\n amount_dollars: $405.83\n category_name: Housing\n"
    " note: I may repeat this\n"
)


def observe(sim):
    return PerceptionModule(ocr="off").process_observation(
        sim.get_state(), foreground_activity=sim.foreground_activity_name
    )


def test_the_same_name_is_typed_into_the_second_records_form():
    sim = SimEnv(render=False)
    try:
        ex.clear(sim)
        info = offline.text_lib.parse_goal(GOAL)
        plan, _ = offline.build_plan(info)
        executor = offline.build_offline_roles().action_generator
        executor.set_goal(GOAL)
        context = f"Task goal: {GOAL}\n"
        for sub_goal in plan:
            intent = offline.parse_sub_goal(sub_goal, info)
            for _ in range(4):
                obs = observe(sim)
                if intent.kind == "fill" and offline.sub_goal_done(intent, obs, [])[0]:
                    break
                proposed = executor.generate_action(sub_goal, obs, context)
                assert proposed.action is not None, (sub_goal, proposed.thought)
                assert proposed.action.action_type != "navigate_back", (sub_goal, proposed.thought)
                sim.execute_action(proposed.action)
                if intent.kind != "fill":
                    break
        rows = sorted((r["name"], r["amount"]) for r in ex.list_rows(sim))
        assert rows == [("Utilities", 15108), ("Utilities", 40583)]
    finally:
        sim.close()
