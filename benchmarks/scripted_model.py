"""A scripted model server on 127.0.0.1 that answers every Celil role from the task's reference
solution, wrong on purpose at set rates: the executor proposes a wrong action with probability
`p`, each verifier persona judges a proposal correctly with probability `q`.

It speaks OpenAI's /v1/chat/completions, so the agent reaches it through its real OpenAI
backend, prompts, parsers, gate, evidence checks and usage ledger; only the model is scripted.

How each role answers (the role is the request's model name, the kind of planner question the
prompt's opening words):
- planner: one sub-goal, the task itself; "is it done?" truthfully (the reference solution has
  nothing left to do on this screen), quoting a text on screen; questions answered with the
  reference answer. The planner is truthful so the benchmark isolates the gate.
- executor (JSON format): the reference solution's next action for the live screen, or with
  probability `p` a wrong one: a tap on another control, a tap on a label, a typo in typed
  text, a scroll the wrong way, or a premature "done". After a wrong action ran it recovers as
  an agent would: if the screen is unchanged it carries on; else one "back", then it starts the
  reference solution again from the current screen.
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
import threading
import zlib
from collections.abc import Callable, Iterator
from typing import Any

from android_world.agents.custom import celil_perception
from android_world.env import interface, json_action
from android_world.task_evals import task_eval

PLANNER_MODEL = "scripted-planner"
EXECUTOR_MODEL = "scripted-executor"
VERIFIER_MODEL = "scripted-verifier"
SUB_GOAL = "Do the whole task as asked"
# What the verifier prompt says about an irreversible target (celil_quality_control).
IRREVERSIBLE_NOTE = "reads like an irreversible action"
PERSONAS = ("Pragmatist", "Skeptic", "Efficiency Expert")
# Labels carried in the executor's reason so the benchmark can score the gate per proposal.
CORRECT, WRONG, RECOVERY = "correct", "wrong", "recovery"


@dataclasses.dataclass(frozen=True)
class Rates:
    p: float = 0.3  # executor wrong
    q: float = 0.8  # persona accuracy
    rho: float = 0.0  # chance the personas share one judgement
    seed: int = 0


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

    def on_execute(self, action: json_action.JSONAction) -> None:
        """Called by the env wrapper for every action that really runs."""
        with self.lock:
            if self._last_label == RECOVERY:
                return
            if self._last_label == CORRECT:
                self._pending = None  # done; the next one is computed on the new screen
            elif self._last_label == WRONG:
                if action.action_type == json_action.INPUT_TEXT:
                    self._pending = None  # typed, wrongly: no way to un-type, carry on
                elif self._off_track_backs is None:
                    self._off_track_backs = 0

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

    def executor_reply(self) -> str:
        with self.lock:
            self._proposal_n += 1
            correct = self._next_correct()
            draw = _rng(self.rates.seed, self.episode, self._proposal_n, "executor")
            wrong = draw.random() < self.rates.p
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
            elif self.is_recovery(correct):
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

    def plan_reply(self) -> str:
        return json.dumps({"sub_goals": [SUB_GOAL], "rationale": "scripted"})

    def progress_reply(self) -> str:
        with self.lock:
            done = self._off_track_backs is None and self._next_correct() is None
            done = done and not self._lost
            evidence = ""
            if done:
                _, elements = _screen(self.env)
                text = next((e.text for e in elements if e.text and len(e.text) >= 2), "")
                evidence = f'"{text}"' if text else ""
            return json.dumps({"done": done, "evidence": evidence})

    def answer_reply(self) -> str:
        with self.lock:
            self._next_correct()
            return json.dumps({"answer": self._answer or "", "evidence": "scripted"})


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
        return world.executor_reply()
    if model == VERIFIER_MODEL:
        persona = next((p for p in PERSONAS if f"You are the {p}" in prompt), PERSONAS[0])
        return world.vote_reply(persona, IRREVERSIBLE_NOTE in prompt)
    if "Judge whether a sub-goal" in prompt:
        return world.progress_reply()
    if "The user asked a question" in prompt:
        return world.answer_reply()
    return world.plan_reply()


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
