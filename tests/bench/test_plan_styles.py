"""Plans worded the way models word them (benchmarks/plan_styles.py), and the agent with a model
that answers every call right: whatever the plan's wording, it succeeds and never claims a task
it did not do."""

from __future__ import annotations

import plan_styles as ps
import pytest

GOAL = "Create a timer with 0 hours, 16 minutes, and 35 seconds. Do not start the timer."
TRACE = [
    ps.TraceStep("open_app", text="Clock"),
    ps.TraceStep("click", label="Timer"),
    ps.TraceStep("click", label="1"),
    ps.TraceStep("click", label="6"),
    ps.TraceStep("click", label="3"),
    ps.TraceStep("click", label="5"),
]


@pytest.mark.parametrize("style", ps.STYLES)
def test_every_style_writes_a_plan_whose_end_is_the_whole_task(style):
    plan = ps.plan_for(style, GOAL, "Clock", TRACE)
    assert plan and all(step.text.strip() for step in plan)
    assert plan[-1].needs is None  # the last step is done only when the task is
    needs = [s.needs for s in plan if s.needs is not None]
    assert needs == sorted(needs) and all(n <= len(TRACE) for n in needs)


def test_the_styles_word_plans_as_models_do():
    assert ps.plan_for("verbatim", GOAL, "Clock")[0].text == GOAL
    assert [s.text for s in ps.plan_for("open_then_goal", GOAL, "Clock", TRACE)] == [
        "Open the Clock app",
        GOAL,
    ]
    restated = ps.plan_for("restated", GOAL, "Clock")[0].text
    assert restated != GOAL and "16" in restated and "35" in restated
    fine = ps.plan_for("fine", GOAL, "Clock", TRACE)
    assert 3 <= len(fine) <= 6 and "Timer" in fine[1].text
    unseen = [s.text for s in ps.plan_for("unseen_labels", GOAL, "Clock", TRACE)]
    assert unseen[-1] == "Tap the 'Save' button"  # a button the timer screen does not have
    assert ps.plan_for("verify", GOAL, "Clock", TRACE)[-1].text.startswith("Verify")
    with pytest.raises(ValueError, match="unknown plan style"):
        ps.plan_for("poetic", GOAL, "Clock")


def test_vendor_words_are_named_as_stock_android_names_them():
    assert ps.stock_label("Done") == "Save"
    assert ps.stock_label("WLAN") == "Wi-Fi"
    assert ps.stock_label("Timer") == "Timer"


# A sample that crosses the kinds of evidence: a switch, a form saved, a named delete, a keypad
# duration with a forbidden tap, a question.
SAMPLE = [
    "SystemWifiTurnOff",
    "ContactsAddContact",
    "ExpenseDeleteSingle",
    "ClockTimerEntry",
    "TasksHighPriorityTasks",
]


@pytest.mark.parametrize("style", ps.STYLES)
@pytest.mark.slow
def test_every_answer_right_succeeds_with_no_false_completion_in_every_style(style):
    import scripted_model as sm
    import verifier_value as vv

    rates = sm.Rates(p=0.0, q=1.0, plan_style=style)
    row = vv.run_row("adaptive", rates, SAMPLE, "all right", [0])
    assert row.episodes == len(SAMPLE)
    assert row.false_complete == 0 and row.unclaimed == 0, row.failures
    assert row.successes == len(SAMPLE), row.failures
