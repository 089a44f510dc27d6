"""A seeded random agent: a test double for the harness, and a floor for any real agent.

It picks weighted random gestures at random screen coordinates, as upstream's RandomAgent does.
By default it never signals done (`p_complete=0`), so under the benchmark's rule (a score counts
only when the agent says done) it scores 0 whatever it stumbles into; set `p_complete` to let it
end an episode with `status complete` at that probability per step.
"""

from __future__ import annotations

import random
import string

import pydantic

from android_world.agents import base_agent
from android_world.env import interface, json_action

_WEIGHTED_ACTIONS: tuple[tuple[str, float], ...] = (
    (json_action.CLICK, 0.35),
    (json_action.LONG_PRESS, 0.05),
    (json_action.DOUBLE_TAP, 0.05),
    (json_action.SCROLL, 0.15),
    (json_action.SWIPE, 0.1),
    (json_action.INPUT_TEXT, 0.1),
    (json_action.NAVIGATE_BACK, 0.1),
    (json_action.NAVIGATE_HOME, 0.03),
    (json_action.KEYBOARD_ENTER, 0.04),
    (json_action.WAIT, 0.03),
)


class RandomAgentConfig(pydantic.BaseModel):
    """`agent.configurations.random_agent` keys."""

    model_config = pydantic.ConfigDict(extra="forbid", allow_inf_nan=False)

    seed: int | None = None
    """`null` = the run's seed (`env.seed`)."""
    p_complete: float = pydantic.Field(default=0.0, ge=0.0, le=1.0)
    """Chance per step of ending with `status complete` (0 = never done, so it always scores
    0)."""
    name: str = "random_agent"
    """The agent's name in results and reports."""


class RandomAgent(base_agent.EnvironmentInteractingAgent):
    """Random gestures from a private `random.Random(seed)`; the global RNG is left alone."""

    def __init__(
        self,
        env: interface.AsyncEnv,
        name: str = "random_agent",
        seed: int | None = 0,
        p_complete: float = 0.0,
        transition_pause: float | None = 0.0,
    ):
        super().__init__(env, name=name, transition_pause=transition_pause)
        self._rng = random.Random(seed)
        self._p_complete = p_complete

    def _random_action(self, width: int, height: int) -> json_action.JSONAction:
        kinds, weights = zip(*_WEIGHTED_ACTIONS)
        kind = self._rng.choices(kinds, weights=weights)[0]
        x, y = self._rng.randrange(width), self._rng.randrange(height)
        if kind in (json_action.CLICK, json_action.LONG_PRESS, json_action.DOUBLE_TAP):
            return json_action.JSONAction(action_type=kind, x=x, y=y)
        if kind in (json_action.SCROLL, json_action.SWIPE):
            direction = self._rng.choice(json_action.SCROLL_DIRECTIONS)
            return json_action.JSONAction(action_type=kind, direction=direction)
        if kind == json_action.INPUT_TEXT:
            text = "".join(self._rng.choices(string.ascii_lowercase, k=self._rng.randint(1, 8)))
            return json_action.JSONAction(action_type=kind, text=text, x=x, y=y)
        return json_action.JSONAction(action_type=kind)

    def step(self, goal: str) -> base_agent.AgentInteractionResult:
        del goal
        self.get_post_transition_state()  # observe, as a real agent would (and for screenshots)
        if self._p_complete and self._rng.random() < self._p_complete:
            action = json_action.JSONAction(action_type=json_action.STATUS, goal_status="complete")
            return base_agent.AgentInteractionResult(True, {"action": action.as_dict()})
        width, height = self.env.logical_screen_size
        action = self._random_action(width, height)
        error = None
        try:
            self.env.execute_action(action)
        except ValueError as exc:  # e.g. nothing typeable at (x, y): still a step taken
            error = str(exc)
        return base_agent.AgentInteractionResult(
            False, {"action": action.as_dict(), "error": error}
        )
