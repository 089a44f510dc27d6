"""A scripted model server on 127.0.0.1 that answers every Celil role from the task's reference
solution, wrong on purpose at set rates: the executor proposes a wrong action with probability
`p`, each verifier persona judges a proposal correctly with probability `q`.

It speaks OpenAI's /v1/chat/completions, so the agent reaches it through its real OpenAI
backend, prompts, parsers, gate, evidence checks and usage ledger; only the model is scripted.

How each role answers (the role is the request's model name, the kind of planner question the
prompt's opening words):
- planner: a plan in the run's plan style (benchmarks/plan_styles.py: the goal verbatim, the app
  then the goal, the goal restated, fine steps, steps naming buttons not yet on screen, a final
  "verify" step, or the old neutral sub-goal); a corrective plan is the style's steps not yet
  done. "Is it done?" is answered from the truth (each styled step knows how much of the
  reference solution must have run), quoting the on-screen texts that show it, and wrong with
  probability `progress_wrong`: a "done" too early (quoting a text on screen, or a value that is
  not on it) or a "not done" for a step that is. Questions get the reference answer.
- executor (JSON format): "complete" once the current sub-goal's truth holds (a model's executor
  finishes the step it was given), else the reference solution's next action for the live
  screen, or with probability `p` a wrong one: a tap on another control, a tap on a label, a
  typo in typed text, a scroll the wrong way, or a premature "done". After a wrong action ran it
  recovers as an agent would: if the screen is unchanged it carries on; else one "back", then it
  starts the reference solution again from the current screen. A reference action the device
  refused (it raised) is not replayed later on another page: the next proposal starts the
  reference solution again from the live screen (`on_refused`).
- verifiers: a persona judges the last proposal right with probability `q` and votes 8-9 for an
  action it judges right (9-10 when the prompt marks it irreversible and asks for a high score
  only if the task asks for it), 2-4 for one it judges wrong. With correlation `rho` the three
  personas share one judgement with probability `rho` (one model's blind spots), else judge
  independently.

Every random draw is keyed by (seed, episode, proposal number[, persona]), not by call order, so
policies that make different numbers of calls still meet the same executor mistakes.
"""

from __future__ import annotations

import dataclasses
import http.server
import json
import random
import re
import threading
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import plan_styles as ps

from android_world.agents.custom.roles import celil_perception
from android_world.env import interface, json_action
from android_world.task_evals import task_eval

PLANNER_MODEL = "scripted-planner"
EXECUTOR_MODEL = "scripted-executor"
VERIFIER_MODEL = "scripted-verifier"
SUB_GOAL = ps.NEUTRAL_SUB_GOAL
# What the verifier prompt says about an irreversible target (celil_quality_control).
IRREVERSIBLE_NOTE = "reads like an irreversible action"
PERSONAS = ("Pragmatist", "Skeptic", "Efficiency Expert")
# What a joint vote's prompt says (celil_joint_votes.joint_prompt): several personas, one answer.
JOINT_MARKER = "Answer as each of these"
# Labels carried in the executor's reason so the benchmark can score the gate per proposal.
CORRECT, WRONG, RECOVERY = "correct", "wrong", "recovery"


@dataclasses.dataclass(frozen=True)
class Rates:
    p: float = 0.3  # executor wrong
    q: float = 0.8  # persona accuracy
    rho: float = 0.0  # chance the personas share one judgement
    seed: int = 0
    plan_style: str = "neutral"  # plan_styles.STYLES
    progress_wrong: float = 0.0  # a progress answer is wrong
    joint_malformed: float = 0.0  # a joint vote comes back in a shape nothing can read


def _rng(*key: Any) -> random.Random:
    return random.Random(zlib.crc32(repr(key).encode()))


def _screen(env: interface.AsyncEnv) -> tuple[str, list[Any]]:
    elements = env.get_state().ui_elements
    return celil_perception.ui_digest(elements), elements


def _typo(text: str) -> str:
    if len(text) >= 2:
        return text[:-2] + text[-1] + text[-2] if text[-1] != text[-2] else text[:-1]
    return text + "x"


class ScriptedWorld:
    """The truth the scripted model answers from: the env, the task and its reference solution."""

    def __init__(self, env: interface.AsyncEnv, rates: Rates) -> None:
        self.env = env
        self.rates = rates
        self.lock = threading.RLock()
        self.task: task_eval.TaskEval | None = None
        self.episode = ""
        self._gen: Iterator[json_action.JSONAction] | None = None
        self._pending: json_action.JSONAction | None = None
        self._pending_screen = ""
        self._finished = False
        self._lost = ""
        self._off_track_backs: int | None = None
        self._proposal_n = 0
        self._last_label = CORRECT
        self._answer: str | None = None
        self.restarts = 0
        self._lost_backs = 0
        self._recovering = False
        self._ran = 0  # reference actions that ran since the reference solution (re)started
        self._plan: list[ps.StyledStep] = []
        self._progress_n = 0

    # -- episode hooks ----------------------------------------------------------------------------

    def set_task(self, task: task_eval.TaskEval, instance: int = 0) -> None:
        with self.lock:
            self.task = task
            self.episode = f"{task.name}#{instance}"
            self._gen = None
            self._pending = None
            self._pending_screen = ""
            self._finished = False
            self._lost = ""
            self._off_track_backs = None
            self._proposal_n = 0
            self._last_label = CORRECT
            self._answer = None
            self._lost_backs = 0
            self._recovering = False
            self._ran = 0
            self._progress_n = 0
            self._plan = self._styled_plan(task)

    def _styled_plan(self, task: task_eval.TaskEval) -> list[ps.StyledStep]:
        style = self.rates.plan_style
        trace: list[ps.TraceStep] = []
        if style not in ("neutral", "verbatim", "restated"):
            seed = getattr(self.env, "seed", 0)
            profile = getattr(self.env, "profile", None)
            trace = ps.reference_trace(type(task), dict(task.params), seed, profile)
        app = ps.plan_app(list(getattr(task, "app_names", ()) or ()), trace)
        return ps.plan_for(style, task.goal, app, trace)

    def run_action(self, execute: Callable[[Any], None], action: Any) -> None:
        """Run `action` on the device through `execute` and tell this world what came of it:
        `on_refused` when the device raised (then re-raised), else `on_execute`. The env wrappers
        of every benchmark that drives the scripted model go through here."""
        try:
            execute(action)
        except Exception:
            self.on_refused(action)
            raise
        self.on_execute(action)

    def on_execute(self, action: json_action.JSONAction) -> None:
        """Called by the env wrapper for every action that really runs."""
        with self.lock:
            if self._last_label == RECOVERY:
                return
            if self._last_label == CORRECT:
                self._pending = None  # done; the next one is computed on the new screen
                self._ran += 1
            elif self._last_label == WRONG:
                if action.action_type == json_action.INPUT_TEXT:
                    self._pending = None  # typed, wrongly: no way to un-type, carry on
                elif self._off_track_backs is None:
                    self._off_track_backs = 0

    def on_refused(self, action: json_action.JSONAction) -> None:
        """Called by the env wrapper when the device refused an action (it raised, nothing ran).

        A model whose action was refused looks at the screen again before its next proposal;
        it does not replay the same tap later on whatever page a replan has reached since. So a
        refused reference action ends the reference run: the next proposal starts it again from
        the live screen."""
        with self.lock:
            if self._last_label != CORRECT or self._pending is None:
                return
            self._gen, self._pending = None, None
            self._ran = 0
            self.restarts += 1

    # -- the reference solution on the live screen --------------------------------------------------

    def _back(self) -> json_action.JSONAction:
        self._recovering = True
        return json_action.JSONAction(action_type=json_action.NAVIGATE_BACK)

    def _next_correct(self) -> json_action.JSONAction | None:
        """The reference solution's action for the current screen (None: nothing left to do)."""
        assert self.task is not None
        key, _ = _screen(self.env)
        self._recovering = False
        if self._off_track_backs is not None:
            if key == self._pending_screen:
                self._off_track_backs = None  # the wrong action changed nothing
            elif self._off_track_backs < 1:
                self._off_track_backs += 1
                return self._back()
            else:
                self._off_track_backs = None
                self._gen, self._pending = None, None
                self._ran = 0
                self.restarts += 1
        if self._finished:
            return None
        if self._gen is None:
            self._gen = iter(self.task.oracle_actions(self.env))
        if self._pending is None:
            try:
                self._pending = next(self._gen)
            except StopIteration:
                self._finished = True
                return None
            except Exception as error:  # the reference solution cannot go on from here
                self._gen = None
                self._ran = 0
                if self._lost_backs < 3:  # back out and start it again, as a person would
                    self._lost_backs += 1
                    self.restarts += 1
                    return self._back()
                self._lost = f"{type(error).__name__}: {error}"
                self._finished = True
                return None
            self._pending_screen = key
        if self._pending.action_type == json_action.STATUS:
            self._finished = True
            return None
        if self._pending.action_type == json_action.ANSWER:
            self._answer = self._pending.text
            self._finished = True
            return None
        return self._pending

    def is_recovery(self, action: json_action.JSONAction) -> bool:
        return self._recovering and action.action_type == json_action.NAVIGATE_BACK

    # -- role answers ------------------------------------------------------------------------------

    # -- the plan's truth ----------------------------------------------------------------------------

    def _step_for(self, sub_goal: str) -> ps.StyledStep | None:
        key = _norm(sub_goal)
        return next((s for s in self._plan if _norm(s.text) == key), None)

    def step_done(self, sub_goal: str) -> bool:
        """The truth for a sub-goal: its share of the reference solution has run (a step the
        world did not write, like the whole task, only once nothing is left to do)."""
        step = self._step_for(sub_goal)
        needs = step.needs if step is not None else None
        if needs is not None and self._off_track_backs is None and self._ran >= needs:
            return True
        return self._whole_task_done()

    def remaining_plan(self) -> list[str]:
        return [s.text for s in self._plan if not self.step_done(s.text)] or [self._plan[-1].text]

    def executor_reply(self, prompt: str = "") -> str:
        with self.lock:
            self._proposal_n += 1
            sub_goal = _field(prompt, "Current sub-goal")
            correct = self._next_correct()
            draw = _rng(self.rates.seed, self.episode, self._proposal_n, "executor")
            wrong = draw.random() < self.rates.p
            step = self._step_for(sub_goal) if sub_goal else None
            recovering = correct is not None and self.is_recovery(correct)
            if (
                correct is not None
                and not recovering
                and step is not None
                and self.step_done(sub_goal)
            ):
                # The step it was given is done: a model's executor says so, and the agent
                # moves on (or asks for proof).
                correct = None
            if correct is None:
                label = CORRECT
                if self._lost:
                    payload = {"action_type": "status", "goal_status": "infeasible"}
                elif wrong:
                    payload, label = self._wrong_tap(draw, None)
                elif self._answer is not None:
                    payload = {"action_type": "answer", "text": self._answer}
                else:
                    payload = {"action_type": "status", "goal_status": "complete"}
            elif recovering:
                payload, label = correct.as_dict(), RECOVERY
            elif wrong:
                payload, label = self._wrong(draw, correct)
            else:
                payload, label = correct.as_dict(), CORRECT
            self._last_label = label
            return f"Reason: scripted {label} step\nAction: {json.dumps(payload)}"

    def _wrong(self, draw: random.Random, correct: json_action.JSONAction) -> tuple[dict, str]:
        kind = correct.action_type
        roll = draw.random()
        if roll < 0.2:
            return {"action_type": "status", "goal_status": "complete"}, WRONG
        if kind == json_action.INPUT_TEXT and correct.text and roll < 0.8:
            return {**correct.as_dict(), "text": _typo(correct.text)}, WRONG
        if kind == json_action.SCROLL and roll < 0.7:
            opposite = {"up": "down", "down": "up", "left": "right", "right": "left"}
            return {**correct.as_dict(), "direction": opposite.get(correct.direction, "up")}, WRONG
        return self._wrong_tap(draw, correct)

    def _wrong_tap(
        self, draw: random.Random, correct: json_action.JSONAction | None
    ) -> tuple[dict, str]:
        """A tap on another control (or, one time in four, on a label)."""
        _, elements = _screen(self.env)
        target = correct.index if correct is not None else None
        labels = draw.random() < 0.25
        pool = [
            i
            for i, e in enumerate(elements)
            if i != target
            and e.bbox_pixels is not None
            and (not e.is_clickable if labels else e.is_clickable)
            and e.bbox_pixels.y_min >= 110
        ]
        if not pool:
            return {"action_type": "status", "goal_status": "complete"}, WRONG
        return {"action_type": "click", "index": draw.choice(pool)}, WRONG

    def vote_reply(self, persona: str, irreversible: bool = False) -> str:
        """A persona's vote; on an irreversible action the prompt asks for a high score only
        when the task asks for it, so a judge sure it is right votes 9-10 there."""
        with self.lock:
            right = self._last_label != WRONG
            shared = _rng(self.rates.seed, self.episode, self._proposal_n, "shared")
            if shared.random() < self.rates.rho:
                draw = shared
            else:
                draw = _rng(self.rates.seed, self.episode, self._proposal_n, persona)
            judged_right = right if draw.random() < self.rates.q else not right
            right_scores = (9, 10) if irreversible else (8, 9)
            score = draw.choice(right_scores) if judged_right else draw.choice((2, 3, 4))
            reason = "fits the sub-goal" if judged_right else "the target does not match the intent"
            return json.dumps({"score": score, "reasoning": reason})

    def joint_vote_reply(self, personas: list[str], irreversible: bool = False) -> str:
        """Every asked persona's vote in one answer, each judged as `vote_reply` judges it (the
        same draws, so joint and one-by-one voting meet the same judgements), written in one of
        the shapes real models use for it; with probability `joint_malformed` in a shape that
        cannot be read (cut off, scores missing, personas unnamed in the wrong number)."""
        with self.lock:
            votes = [(p, json.loads(self.vote_reply(p, irreversible))) for p in personas]
            draw = _rng(self.rates.seed, self.episode, self._proposal_n, "joint shape")
            if draw.random() < self.rates.joint_malformed:
                return _malformed_joint(draw, votes)
            return _joint_shape(draw, votes)

    def plan_reply(self, prompt: str = "") -> str:
        with self.lock:
            if "run into trouble" in prompt and self._plan:
                steps = self.remaining_plan()
            else:
                steps = [s.text for s in self._plan] or [SUB_GOAL]
            return json.dumps({"sub_goals": steps, "rationale": "scripted"})

    def progress_reply(self, prompt: str = "") -> str:
        with self.lock:
            self._progress_n += 1
            sub_goal = _field(prompt, "Sub-goal") or ""
            done = self.step_done(sub_goal) if sub_goal else self._whole_task_done()
            draw = _rng(self.rates.seed, self.episode, "progress", sub_goal, self._progress_n)
            _, elements = _screen(self.env)
            texts = [e.text for e in elements if e.text and len(e.text.strip()) >= 2]
            if draw.random() < self.rates.progress_wrong:
                if done:
                    return json.dumps({"done": False, "evidence": ""})
                # Done too early: a text that is on screen but proves nothing, or a value of
                # the goal that is not on the screen at all.
                if texts and draw.random() < 0.5:
                    evidence = f'"{draw.choice(texts)}"'
                else:
                    values = _values(self.task.goal if self.task else "") or ["saved"]
                    evidence = f'"{draw.choice(values)}" is shown'
                return json.dumps({"done": True, "evidence": evidence})
            evidence = ""
            if done:
                best = _best_evidence(texts, f"{sub_goal} {self.task.goal if self.task else ''}")
                evidence = ", ".join(f'"{t}"' for t in best)
            return json.dumps({"done": done, "evidence": evidence})

    def _whole_task_done(self) -> bool:
        return self._off_track_backs is None and self._next_correct() is None and not self._lost

    def answer_reply(self) -> str:
        with self.lock:
            self._next_correct()
            return json.dumps({"answer": self._answer or "", "evidence": "scripted"})


def _joint_shape(draw: random.Random, votes: list[tuple[str, dict[str, Any]]]) -> str:
    """A readable joint vote in one of the shapes models write: the asked `{"votes": [...]}`,
    a map keyed by persona, a bare list, the list in a ```json fence after a sentence, or one
    `Persona: score/10 - reason` line each."""
    entries = [{"persona": p, **v} for p, v in votes]
    shape = draw.randrange(5)
    if shape == 0:
        return json.dumps({"votes": entries})
    if shape == 1:
        return json.dumps({p.lower().replace(" ", "_"): v for p, v in votes})
    if shape == 2:
        return json.dumps(
            [
                {"name": e["persona"], "rating": e["score"], "reason": e["reasoning"]}
                for e in entries
            ]
        )
    if shape == 3:
        return (
            "Here are the reviews:\n```json\n" + json.dumps({"votes": entries}, indent=2) + "\n```"
        )
    return "\n".join(f"**{p}**: {v['score']}/10 - {v['reasoning']}" for p, v in votes)


def _malformed_joint(draw: random.Random, votes: list[tuple[str, dict[str, Any]]]) -> str:
    """A joint vote nothing can be read from: cut off mid-answer, the scores left out, or a
    list of unnamed scores that does not match the personas asked."""
    entries = [{"persona": p, **v} for p, v in votes]
    kind = draw.randrange(3)
    if kind == 0:
        return json.dumps({"votes": entries})[:25]
    if kind == 1:
        return json.dumps(
            {"votes": [{"persona": p, "reasoning": v["reasoning"]} for p, v in votes]}
        )
    return json.dumps({"votes": [v["score"] for _, v in votes] + [5]})


def _norm(text: str) -> str:
    return " ".join(text.casefold().split()).strip(" .")


def _field(prompt: str, name: str) -> str:
    """The text after `name:` on its line ("Current sub-goal: ..."), or ""."""
    match = re.search(rf"^{re.escape(name)}:[ \t]*(.*)$", prompt, re.M)
    return match.group(1).strip() if match else ""


_VALUE = re.compile(r"'([^']+)'|\"([^\"]+)\"|(\d[\d:.,]*)")


def _values(goal: str) -> list[str]:
    """Quoted texts and numbers a goal names."""
    return [next(g for g in m.groups() if g) for m in _VALUE.finditer(goal)]


def _best_evidence(texts: list[str], wanted: str) -> list[str]:
    """Up to two on-screen texts that share the most words with what is asked (a truthful
    model quotes what shows it, not the first text it sees)."""
    words = set(re.findall(r"\w+", wanted.casefold()))

    def overlap(text: str) -> int:
        return len(words & set(re.findall(r"\w+", text.casefold())))

    ranked = sorted(texts, key=overlap, reverse=True)
    best = [t for t in ranked[:2] if overlap(t) > 0]
    return best or ranked[:1]


def _prompt_text(body: dict[str, Any]) -> str:
    parts: list[str] = []
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [c.get("text", "") for c in content if isinstance(c, dict)]
    return "\n".join(parts)


def answer(world: ScriptedWorld, body: dict[str, Any]) -> str:
    model, prompt = body.get("model", ""), _prompt_text(body)
    if model == EXECUTOR_MODEL:
        return world.executor_reply(prompt)
    if model == VERIFIER_MODEL:
        if JOINT_MARKER in prompt:
            asked = sorted((prompt.find(f"You are the {p}"), p) for p in PERSONAS)
            personas = [p for at, p in asked if at >= 0] or list(PERSONAS)
            return world.joint_vote_reply(personas, IRREVERSIBLE_NOTE in prompt)
        persona = next((p for p in PERSONAS if f"You are the {p}" in prompt), PERSONAS[0])
        return world.vote_reply(persona, IRREVERSIBLE_NOTE in prompt)
    if "Judge whether a sub-goal" in prompt:
        return world.progress_reply(prompt)
    if "The user asked a question" in prompt:
        return world.answer_reply()
    return world.plan_reply(prompt)


class ScriptedServer:
    """The world behind an OpenAI-compatible HTTP endpoint on 127.0.0.1 (an ephemeral port)."""

    def __init__(
        self,
        world: ScriptedWorld,
        delay_s: float = 0.0,
        answer_fn: Callable[[Any, dict[str, Any]], str] | None = None,
    ) -> None:
        self.world = world
        self.calls = 0
        respond = answer_fn or answer  # another world's roles (benchmarks/hostile_screen.py)
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if delay_s:
                    threading.Event().wait(delay_s)
                text = respond(outer.world, body)
                outer.calls += 1
                reply = {
                    "id": "scripted",
                    "object": "chat.completion",
                    "model": body.get("model", ""),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": "stop",
                        }
                    ],
                }
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                data = json.dumps({"object": "list", "data": []}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                return None

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
