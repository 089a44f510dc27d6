"""Memory must never be poisoned: what is stored, and how a bad stored plan stops being used.

A plan is stored only from an episode whose check passed AND whose agent claimed success (an
episode that passed although the agent gave up succeeded for some other reason than its plan).
A stored plan that fails its next `retire_after` uses retires and is never retrieved again,
however good its record was (a plan stored from a lucky episode looks perfect until reused).
"""

from __future__ import annotations

import celil_fakes as fakes
from test_celil_agent import GOAL, PLAN, happy_script, make_agent, run

from android_world.agents.custom.memory.celil_episodic import EpisodicMemory


def _gives_up(memory, **kwargs):
    """An agent whose executor has nothing to propose: it ends `infeasible` at once."""
    return make_agent(
        executor=fakes.ScriptedExecutor([]), episodic_memory=memory, max_rehearsals=0, **kwargs
    )


def test_a_passed_check_the_agent_did_not_claim_stores_nothing():
    memory = fakes.FakeEpisodicMemory(None)
    events: list[dict] = []
    agent, _ = _gives_up(memory, events=events)
    run(agent)
    assert agent.episode_summary()["status"] == "infeasible"
    agent.episode_finished(GOAL, 1.0)  # the task's check passed anyway
    assert memory.added == []
    warning = [e["message"] for e in events if e["type"] == "warning"][-1]
    assert "plan not stored" in warning and "infeasible" in warning


def test_a_claimed_success_that_failed_its_check_stores_nothing():
    memory = fakes.FakeEpisodicMemory(None)
    agent, _ = make_agent(executor=fakes.ScriptedExecutor(happy_script()), episodic_memory=memory)
    run(agent)
    assert agent.episode_summary()["status"] == "complete"
    agent.episode_finished(GOAL, 0.0)
    assert memory.added == []


def test_a_reused_plan_counts_as_failed_when_the_claim_and_the_check_disagree():
    hit = fakes.FakeRetrievedPlan("e1", "Add a contact named {name_1}", list(PLAN), 1.0, 1.0)
    memory = fakes.FakeEpisodicMemory(hit)
    agent, _ = _gives_up(memory)
    run(agent)
    agent.episode_finished(GOAL, 1.0)
    assert memory.outcomes == [("e1", False)] and memory.added == []


def test_a_poisoned_plan_is_reused_until_its_failures_retire_it(tmp_path):
    """A wrong plan with a perfect record: trusted at first, retired after 3 failed uses, then
    never retrieved again, and the planner plans afresh."""
    memory = EpisodicMemory(tmp_path / "memory.db", retire_after=3)
    poison = ["Open the Contacts app", "Delete the contact named Bob"]
    for _ in range(5):
        entry = memory.add_successful_plan(GOAL, poison)
    sources = []
    for _ in range(4):
        events: list[dict] = []
        agent, _ = _gives_up(memory, events=events, memory_reuse_similarity=0.95)
        run(agent)
        hits = [e for e in events if e["type"] == "memory_hit"]
        created = next(e for e in events if e["type"] == "plan_created")
        sources.append((len(hits), created["source"]))
        agent.episode_finished(GOAL, 0.0)
    # Used as is while its rate stays >= 0.8 (5/5, 5/6), then only offered to the planner
    # (5/7), then retired at its third failure in a row and gone.
    assert sources == [(1, "memory"), (1, "memory"), (1, "model"), (0, "model")]
    [stored] = memory.entries()
    assert stored.id == entry and stored.status == "retired" and stored.failures == 3
    assert memory.find_similar_task(GOAL) is None
