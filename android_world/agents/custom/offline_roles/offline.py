"""Offline roles: the whole Conductor pipeline with no model, no network and no GPU.

This is a no-model BASELINE, never an LLM result: plans carry `source="offline"`, and every
thought, rationale and vote reason starts with "[offline]". It lets a new user see planning,
gating, rehearsal and answering work on the simulated phone before configuring any model, and
it is the fallback the factory uses when a role has no model.

What the roles know comes only from the goal text and the screen: app names and the generic
phone vocabulary in `offline_text` (wifi lives near "internet", a contact form has a "Phone"
field), lexical and fuzzy similarity between goal slots and element labels, and the agent's own
step history from the context summary. They know nothing about any benchmark task.

Build them with `build_offline_roles(**options)`; each class also works on its own, so any role
can be offline while the others use models.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from android_world.agents.custom.celil_protocols import ProposedAction
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles.handlers.dates import (
    when_done,
    when_sub_goals,
    when_target,
    with_today,
)
from android_world.agents.custom.offline_roles.handlers.forms import fill_done
from android_world.agents.custom.offline_roles.handlers.questions import (
    found_answer,
    question_answer,
)
from android_world.agents.custom.offline_roles.offline_actor import OfflineActionGenerator
from android_world.agents.custom.offline_roles.offline_common import SOURCE, TAG
from android_world.agents.custom.offline_roles.offline_common import (
    weekday_year as _weekday_year,
)
from android_world.agents.custom.offline_roles.offline_done import (
    sub_goal_done,
    sub_goal_evidence,
)
from android_world.agents.custom.offline_roles.offline_intent import (
    DATE_SOURCE_APP,
    FIND_SUB_GOAL,
    READ_DATE_SUB_GOAL,
    Intent,
    intent_terms,
    parse_sub_goal,
)
from android_world.agents.custom.offline_roles.offline_planner import (
    OfflinePlanner,
    build_plan,
    not_understood,
    plan_misfit,
)
from android_world.agents.custom.offline_roles.offline_verifier import (
    OfflineElementSelector,
    OfflineVerifier,
    intent_target_ok,
)
from android_world.agents.custom.roles.celil_quality_control import DEFAULT_WEIGHTS

# Names this module has always offered (tests, benchmarks and the plugin's factory import them
# from here); each lives in the module its docstring points to.
__all__ = [
    "DATE_SOURCE_APP",
    "FIND_SUB_GOAL",
    "READ_DATE_SUB_GOAL",
    "SOURCE",
    "TAG",
    "Intent",
    "OfflineActionGenerator",
    "OfflineElementSelector",
    "OfflinePlanner",
    "OfflineRoles",
    "OfflineVerifier",
    "ProposedAction",
    "_weekday_year",
    "build_offline_roles",
    "build_plan",
    "fill_done",
    "found_answer",
    "intent_target_ok",
    "intent_terms",
    "not_understood",
    "parse_sub_goal",
    "plan_misfit",
    "question_answer",
    "sub_goal_done",
    "sub_goal_evidence",
    "text_lib",
    "when_done",
    "when_sub_goals",
    "when_target",
    "with_today",
]


@dataclasses.dataclass
class OfflineRoles:
    planner: OfflinePlanner
    action_generator: OfflineActionGenerator
    verifier: OfflineVerifier
    element_selector: OfflineElementSelector
    source: str = SOURCE


def build_offline_roles(
    *,
    threshold: float = 7.0,
    irreversible_threshold: float = 8.5,
    weights: tuple[float, float, float] = DEFAULT_WEIGHTS,
    max_sub_goals: int = 12,
    **_ignored: Any,
) -> OfflineRoles:
    """The four offline roles, configured like their model-backed counterparts."""
    return OfflineRoles(
        planner=OfflinePlanner(max_sub_goals=max_sub_goals),
        action_generator=OfflineActionGenerator(),
        verifier=OfflineVerifier(
            weights=weights, threshold=threshold, irreversible_threshold=irreversible_threshold
        ),
        element_selector=OfflineElementSelector(),
    )
