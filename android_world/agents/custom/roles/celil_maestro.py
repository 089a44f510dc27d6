"""The Maestro: an LLM planner that writes coarse sub-goals and repairs them when they fail.

Plans are milestones a person could check on screen, not taps: the executor handles taps, and a
coarse plan survives a surprise dialog or a different screen layout. Every answer is parsed
defensively (JSON validated by a schema, a numbered list accepted, one repair request), and a
planner that still fails degrades to a one-sub-goal plan (the goal itself) instead of stopping.
"""

from __future__ import annotations

import collections
import dataclasses
import threading
from typing import Any

import numpy as np

from android_world.agents import infer
from android_world.agents.custom import celil_json, celil_untrusted
from android_world.agents.custom.celil_protocols import (
    ElementSelector,
    Evidence,
    FailureContext,
    Observation,
    Plan,
    Planner,
    UnusableRecord,
    placeholder_observation,
)
from android_world.agents.custom.model_clients.call_types import CallResult, ModelRequest
from android_world.agents.custom.model_clients.client import ModelClient
from android_world.agents.custom.roles import celil_plan_answers
from android_world.agents.custom.roles.celil_goal_questions import is_question

# --------------------------------------------------------------------------------------------
# Calling a model (shared with the verifiers)


@dataclasses.dataclass
class ModelReply:
    text: str
    is_safe: bool | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


_DOWNSCALED: collections.OrderedDict[int, tuple[np.ndarray, int | None, np.ndarray]] = (
    collections.OrderedDict()
)
_DOWNSCALED_LOCK = threading.Lock()


def downscale(image: np.ndarray, max_pixels: int | None) -> np.ndarray:
    """Shrink a screenshot under `max_pixels` (aspect kept); judges do not need full resolution.

    A box filter (area averaging) keeps text legible and costs about 20 ms on a 1080x2400 frame
    where bicubic costs 50+; the result is cached per frame object because the three verifier
    personas and the planner send the same screenshot within one step.
    """
    if not max_pixels or image.ndim < 2:
        return image
    height, width = image.shape[:2]
    if height * width <= max_pixels or height == 0 or width == 0:
        return image
    key = id(image)
    with _DOWNSCALED_LOCK:
        cached = _DOWNSCALED.get(key)
        if cached is not None and cached[0] is image and cached[1] == max_pixels:
            return cached[2]
    from PIL import Image

    scale = (max_pixels / float(height * width)) ** 0.5
    size = (max(1, int(width * scale)), max(1, int(height * scale)))
    small = np.asarray(
        Image.fromarray(np.ascontiguousarray(image)).resize(size, resample=Image.BOX)
    )
    with _DOWNSCALED_LOCK:
        # Keeping `image` referenced guarantees its id is not reused while cached.
        _DOWNSCALED[key] = (image, max_pixels, small)
        while len(_DOWNSCALED) > 4:
            _DOWNSCALED.popitem(last=False)
    return small


def call_model(
    client: ModelClient,
    prompt: str,
    images: list[np.ndarray] | None = None,
    schema: dict[str, Any] | None = None,
    shape_in_prompt: bool = False,
) -> ModelReply:
    """One typed request through the client's one entry point; errors and safety blocks become a
    reply, not a raise. A client that can enforce the JSON schema does (most parse failures go
    at the source); the answer is still parsed defensively. `shape_in_prompt`: the prompt states
    the reply's shape, so a server with no JSON mode is not sent the schema as well."""
    try:
        request = ModelRequest(prompt, tuple(images or ()), schema, shape_in_prompt=shape_in_prompt)
        result = client.call(request)
    except Exception as error:
        return ModelReply("", None, f"model call raised {type(error).__name__}: {error}")
    text, is_safe = result.text, result.is_safe
    text = text if isinstance(text, str) else ("" if text is None else str(text))
    if is_safe is False:
        return ModelReply(text, is_safe, "answer blocked by the model's safety filter")
    if text.strip() == infer.ERROR_CALLING_LLM:
        return ModelReply(text, is_safe, backend_error(result))
    return ModelReply(text, is_safe)


def backend_error(result: CallResult) -> str:
    """Why a call failed, in the client's words (its ledger record keeps them)."""
    why = None if result.ok else result.record.error
    return f"model call failed: {why}" if why else "model backend reported an error"


# --------------------------------------------------------------------------------------------
# Parsing

# Bounds in the schemas: a grammar-constrained small model otherwise repeats list items or one
# sentence until the token limit (observed with SmolLM2 on llama-cpp-python).
PLAN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "sub_goals": {
            "type": "array",
            "items": {"type": "string", "maxLength": 160},
            "minItems": 1,
            "maxItems": 12,
        },
        "rationale": {"type": "string", "maxLength": 300},
    },
    "required": ["sub_goals"],
}
DONE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"done": {"type": "boolean"}, "evidence": {"type": "string", "maxLength": 200}},
    "required": ["done"],
}
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string"}, "evidence": {"type": "string"}},
    "required": ["answer"],
}


# Reading the answers lives in celil_plan_answers (pure, shared with --check_models); these names
# stay importable from here.
PlanAnswer = celil_plan_answers.PlanAnswer
DoneAnswer = celil_plan_answers.DoneAnswer
clean_item = celil_plan_answers.clean_item
list_items = celil_plan_answers.list_items
string_items = celil_plan_answers.string_items
plan_items = celil_plan_answers.plan_items
plan_problem = celil_plan_answers.plan_problem
parse_plan_text = celil_plan_answers.parse_plan_text
parse_bool_answer = celil_plan_answers.parse_bool_answer
clean_answer = celil_plan_answers.clean_answer


# --------------------------------------------------------------------------------------------
# Prompts (our own wording)

_JSON_PLAN = '{"sub_goals": ["first milestone", "second milestone"], "rationale": "one sentence"}'
PLAN_EXAMPLES = celil_json.example_strings(_JSON_PLAN)
PLAN_FORMAT = _JSON_PLAN  # the plan's answer shape as prompts show it (celil_check_requests too)

_PLAN_GUIDE = """Guidelines:
- Write 1 to {max_sub_goals} sub-goals. Each is a milestone a person could confirm by looking at
  the phone ("Open the Contacts app", "Enter the new contact's name and number", "Save the
  contact"), never a single tap or a coordinate.
- Leave out anything the current screen shows is already done.
- Copy exact names, numbers, dates and quoted text from the task into the sub-goals that use them.
- For a question, finish with a sub-goal that brings the needed information onto the screen; the
  answer itself is written later."""


def _screen_block(observation: Observation) -> str:
    return celil_untrusted.screen_block(observation)


# Every planner prompt states it once, before the first screen text.
_DATA_RULE = celil_untrusted.RULE


def initial_plan_prompt(
    goal: str, observation: Observation, retrieved_plan: list[str] | None, max_sub_goals: int
) -> str:
    memory = ""
    if retrieved_plan:
        steps = "\n".join(f"{i}. {s}" for i, s in enumerate(retrieved_plan, 1))
        memory = (
            "A plan that succeeded on a similar task earlier (reuse it where it fits, drop or "
            f"change what does not apply here):\n{steps}\n\n"
        )
    return (
        "You plan for a phone-automation agent. A separate executor performs one touch or "
        "keystroke at a time; you split the user's task into a short list of sub-goals for it. "
        f"{_DATA_RULE} Sub-goals take their targets from the task, not from the screen.\n\n"
        f"Task: {goal}\n\nCurrent screen:\n{_screen_block(observation)}\n\n{memory}"
        f"{_PLAN_GUIDE.format(max_sub_goals=max_sub_goals)}\n\n"
        f"Reply with one JSON object and nothing else, shaped like:\n{_JSON_PLAN}"
    )


_KIND_TEXT = {
    "rejected": "the reviewers judged the proposed action wrong or risky, so it was not executed",
    "post_check_failed": "the action ran but the screen did not change as expected",
    "loop": "the agent kept repeating actions without making progress",
    "execution_error": "the device refused the action",
    "unusable_proposals": "the executor could not produce a usable action",
    "missing_control": "the sub-goal names a control that no screen has shown",
    "goal_unmet": "every sub-goal was done, but the screens do not show the task done",
}


def corrective_plan_prompt(ctx: FailureContext, max_sub_goals: int) -> str:
    done = "\n".join(f"- {s}" for s in ctx.done_sub_goals) or "- (none)"
    # Reasons come from verifiers that read the screen: quoted, one line each.
    reasons = "\n".join(f"- {celil_untrusted.quote(r, 400)}" for r in ctx.reasons if r)
    reasons = reasons or "- (no details)"
    history = (
        f"Recent steps:\n{celil_untrusted.block(ctx.history_summary)}\n\n"
        if ctx.history_summary
        else ""
    )
    return (
        "You plan for a phone-automation agent, and its plan has run into trouble. Write a "
        f"repaired list of the sub-goals that remain. {_DATA_RULE}\n\n"
        f"Task: {ctx.goal}\n\n"
        f"Already finished (do not list these again):\n{done}\n\n"
        f"Sub-goal being attempted: {ctx.failed_sub_goal}\n"
        f"What happened: {_KIND_TEXT.get(ctx.kind, ctx.kind)}.\n"
        f"Action involved: {ctx.action or '(none)'}\n"
        f"Reasons given:\n{reasons}\n\n{history}"
        f"Current screen:\n{_screen_block(ctx.observation)}\n\n"
        "Start from the current screen. Prefer a different route from the one that failed: a "
        "different menu or button, going back first, scrolling to reveal the target, closing a "
        "dialog, or reopening the app. Split the failed sub-goal into smaller milestones if it "
        "was too big.\n"
        f"{_PLAN_GUIDE.format(max_sub_goals=max_sub_goals)}\n\n"
        f"Reply with one JSON object and nothing else, shaped like:\n{_JSON_PLAN}"
    )


def progress_prompt(goal: str, sub_goal: str, observation: Observation, context: str) -> str:
    return (
        "Judge whether a sub-goal of a phone task is already achieved, using only the current "
        "screen and the recent steps. Say done only when the screen clearly shows it, and quote "
        "the on-screen text (or name the switch and its position) that shows it: evidence "
        f"that is not on the screen does not count. {_DATA_RULE}\n\n"
        f"Task: {goal}\nSub-goal: {sub_goal}\n\n{context}\n\n"
        f"Current screen:\n{_screen_block(observation)}\n\n"
        'Reply with JSON only: {"done": true or false, "evidence": "quoted on-screen text"}'
    )


def answer_prompt(goal: str, observation: Observation, context: str) -> str:
    return (
        "The user asked a question about the data on their phone. Read the answer off the "
        f"information below. {_DATA_RULE}\n\n"
        f"Question: {goal}\n\n{context}\n\n"
        f"Current screen:\n{_screen_block(observation)}\n\n"
        "Rules: use exactly the format the question asks for (for example only titles, a "
        "comma-separated list, a number, a date); put nothing but the answer in the answer "
        "field; if the information is partly hidden, give the best answer the text supports.\n"
        f"Reply with JSON only: {_ANSWER_FORMAT}"
    )


_ANSWER_FORMAT = '{"answer": "...", "evidence": "where you read it"}'
ANSWER_EXAMPLES = celil_json.example_strings(_ANSWER_FORMAT)


def _repair_prompt(original: str, problem: str) -> str:
    return (
        f"{original}\n\nYour previous reply could not be used ({problem}). Reply again with only "
        f"the JSON object, shaped like:\n{_JSON_PLAN}"
    )


# --------------------------------------------------------------------------------------------
# The planner


class MaestroPlanner(Planner):
    """LLM-backed `Planner` (see celil_protocols). Takes a built wrapper; never builds one."""

    def __init__(
        self,
        wrapper: ModelClient,
        *,
        max_sub_goals: int = 8,
        max_sub_goal_chars: int = 200,
        use_screenshot: bool = True,
        progress_check_uses_screenshot: bool = False,
        max_image_pixels: int | None = 1_003_520,
        repair_retries: int = 1,
    ):
        self._wrapper = wrapper
        self.max_sub_goals = max(1, max_sub_goals)
        self._max_chars = max_sub_goal_chars
        self._use_screenshot = use_screenshot
        self._progress_image = progress_check_uses_screenshot
        self._max_pixels = max_image_pixels
        self._repair_retries = max(0, repair_retries)
        self.last_warnings: list[str] = []
        # Answers received but not used because they copy the prompt (the agent counts them).
        self.unusable = celil_json.UnusableLog()

    def _images(self, observation: Observation, wanted: bool) -> list[np.ndarray] | None:
        if not wanted or observation.screenshot is None or observation.screenshot.size == 0:
            return None
        return [downscale(observation.screenshot, self._max_pixels)]

    def _finish(self, answer: PlanAnswer, source: str, warnings: list[str]) -> Plan:
        sub_goals = [s[: self._max_chars] for s in answer.sub_goals]
        if len(sub_goals) > self.max_sub_goals:
            warnings.append(
                f"plan had {len(sub_goals)} sub-goals; kept the first {self.max_sub_goals}"
            )
            sub_goals = sub_goals[: self.max_sub_goals]
        return Plan(sub_goals, rationale=answer.rationale, source=source, warnings=warnings)

    def _plan_from_model(
        self, prompt: str, observation: Observation
    ) -> tuple[Plan | None, list[str]]:
        warnings: list[str] = []
        attempt_prompt = prompt
        for attempt in range(1 + self._repair_retries):
            reply = call_model(
                self._wrapper,
                attempt_prompt,
                self._images(observation, self._use_screenshot),
                PLAN_SCHEMA,
                shape_in_prompt=True,
            )
            if not reply.ok:
                problem = reply.error or "error"
            else:
                text, cut = celil_json.bounded(reply.text)
                if cut:
                    warnings.append(f"planner answer {attempt + 1}: {cut}")
                answer, problem = parse_plan_text(text, PLAN_EXAMPLES)
                if answer is not None:
                    return self._finish(answer, "model", warnings), warnings
                kind = "placeholder" if "prompt's example" in problem else "unusable_plan"
                self.unusable.record("maestro", kind, problem, text)
            warnings.append(f"planner answer {attempt + 1} unusable: {problem}")
            attempt_prompt = _repair_prompt(prompt, problem)
        return None, warnings

    def generate_initial_plan(
        self, goal: str, observation: Observation, retrieved_plan: list[str] | None
    ) -> Plan:
        prompt = initial_plan_prompt(goal, observation, retrieved_plan, self.max_sub_goals)
        plan, warnings = self._plan_from_model(prompt, observation)
        if plan is None:
            fallback = list(retrieved_plan) if retrieved_plan else [goal]
            source = "memory" if retrieved_plan else "fallback"
            warnings.append(f"planner failed; using a {source} plan of {len(fallback)} sub-goal(s)")
            plan = self._finish(PlanAnswer(sub_goals=fallback), source, warnings)
        elif retrieved_plan:
            plan.source = "model+memory"
        self.last_warnings = plan.warnings
        return plan

    def generate_corrective_plan(self, failure_context: FailureContext) -> Plan:
        prompt = corrective_plan_prompt(failure_context, self.max_sub_goals)
        plan, warnings = self._plan_from_model(prompt, failure_context.observation)
        if plan is None:
            done = {s.casefold() for s in failure_context.done_sub_goals}
            remaining = [s for s in failure_context.plan if s.casefold() not in done]
            fallback = remaining or [failure_context.goal]
            warnings.append("corrective planner failed; keeping the unfinished sub-goals")
            plan = self._finish(PlanAnswer(sub_goals=fallback), "fallback", warnings)
        self.last_warnings = plan.warnings
        return plan

    def prompt_templates(self) -> dict[str, str]:
        """Every prompt this planner sends, rendered with `{placeholders}` (for prompt hashes)."""
        obs = placeholder_observation()
        failure = FailureContext(
            goal="{goal}",
            plan=["{sub_goal}"],
            done_sub_goals=["{done_sub_goal}"],
            failed_sub_goal="{failed_sub_goal}",
            action="{action}",
            reasons=["{reason}"],
            observation=obs,
            kind="{kind}",
            history_summary="{history}",
        )
        return {
            "initial_plan": initial_plan_prompt("{goal}", obs, None, self.max_sub_goals),
            "initial_plan_with_memory": initial_plan_prompt(
                "{goal}", obs, ["{remembered_sub_goal}"], self.max_sub_goals
            ),
            "corrective_plan": corrective_plan_prompt(failure, self.max_sub_goals),
            "repair": _repair_prompt("{previous_prompt}", "{problem}"),
            "progress_check": progress_prompt("{goal}", "{sub_goal}", obs, "{context}"),
            "answer": answer_prompt("{goal}", obs, "{context}"),
        }

    def take_unusable(self) -> list[UnusableRecord]:
        return self.unusable.take()

    def check_sub_goal(
        self, goal: str, sub_goal: str, observation: Observation, context_summary: str
    ) -> Evidence:
        """The model's verdict and its evidence text, as a `model` verdict: the agent counts it
        only once that text is found on the screen (celil_evidence.ground_text)."""
        prompt = progress_prompt(goal, sub_goal, observation, context_summary)
        reply = call_model(
            self._wrapper,
            prompt,
            self._images(observation, self._progress_image),
            DONE_SCHEMA,
            shape_in_prompt=True,
        )
        if not reply.ok:
            return Evidence(False, f"progress check failed: {reply.error}", "none")
        text = self._read(reply.text, "progress check")
        done = bool(parse_bool_answer(text, "done"))
        data = celil_json.extract_json(text)
        evidence = data.get("evidence") if isinstance(data, dict) else None
        return Evidence(done, " ".join(str(evidence or "").split())[:500], "model")

    def is_sub_goal_done(
        self, goal: str, sub_goal: str, observation: Observation, context_summary: str
    ) -> bool:
        return self.check_sub_goal(goal, sub_goal, observation, context_summary).done

    def answer_question(
        self, goal: str, observation: Observation, context_summary: str
    ) -> str | None:
        """None when the goal is not a question; "" when the model gave no usable answer."""
        if not is_question(goal):
            return None
        prompt = answer_prompt(goal, observation, context_summary)
        reply = call_model(
            self._wrapper,
            prompt,
            self._images(observation, self._use_screenshot),
            ANSWER_SCHEMA,
            shape_in_prompt=True,
        )
        if not reply.ok:
            return ""
        answer, problem = celil_plan_answers.parse_final_answer(
            self._read(reply.text, "answer"), ANSWER_EXAMPLES
        )
        if problem:
            # `[1, 2, 3]`, `null` or the schema echoed back is no answer (issue 27): the agent
            # then looks for one on the screens it saw, or keeps working.
            self.unusable.record("maestro", "non_answer", problem, reply.text)
        return answer

    def _read(self, text: str, what: str) -> str:
        """The part of an answer the parsers read; a cut is recorded with the unusable answers."""
        bounded, cut = celil_json.bounded(text)
        if cut:
            self.unusable.record("maestro", "cut", f"{what}: {cut}", text)
        return bounded


# --------------------------------------------------------------------------------------------
# Vision fallback

INDEX_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"index": {"type": "integer"}, "reasoning": {"type": "string"}},
    "required": ["index"],
}


def selection_prompt(sub_goal: str, observation: Observation) -> str:
    return (
        "A phone-automation agent needs to tap one element to make progress on a sub-goal. "
        f"Pick it from the numbered list (the numbers are the element indices). {_DATA_RULE}\n\n"
        f"Sub-goal: {sub_goal}\n\nCurrent screen:\n{_screen_block(observation)}\n\n"
        'Reply with JSON only: {"index": <number from the list, or -1 if none fits>, '
        '"reasoning": "one sentence"}'
    )


class VisionElementSelector(ElementSelector):
    """LLM-backed `ElementSelector`: when the executor's output is unusable twice, a multimodal
    model picks the element to tap from the numbered list (an index needs no coordinates)."""

    def __init__(self, wrapper: ModelClient, *, max_image_pixels: int | None = 1_003_520):
        self._wrapper = wrapper
        self._max_pixels = max_image_pixels

    def prompt_templates(self) -> dict[str, str]:
        """The prompt, rendered with `{placeholders}` (for prompt hashes)."""
        return {"select_element": selection_prompt("{sub_goal}", placeholder_observation())}

    def select_element(self, sub_goal: str, observation: Observation) -> int | None:
        prompt = selection_prompt(sub_goal, observation)
        images = None
        if observation.screenshot is not None and observation.screenshot.size:
            images = [downscale(observation.screenshot, self._max_pixels)]
        reply = call_model(self._wrapper, prompt, images, INDEX_SCHEMA, shape_in_prompt=True)
        if not reply.ok:
            return None
        data = celil_json.extract_json(celil_json.bounded(reply.text)[0])
        return element_index(data, len(observation.ui_elements))


def element_index(data: dict[str, Any] | None, count: int) -> int | None:
    """The selector's `index` when it names one of `count` elements; `true`, `1.5`, `"x"` or
    an index off the list is none."""
    value = data.get("index") if isinstance(data, dict) else None
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    if not isinstance(value, int):
        return None
    return value if 0 <= value < count else None
