"""Simple SMS Messenger tasks (upstream `single/sms.py` and `sms_validators.py`).

Success is upstream's: a *sent* message (sms type 2) to the number (spaces and dashes ignored)
whose body fuzzy-matches, dated within five minutes of the device clock, with Simple SMS
Messenger in the foreground. Seeding is upstream's: Send starts from an empty inbox; the reply
tasks receive 0-5 (most recent) or 1-5 (reply) texts from other numbers beside the target's.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from android_world.env import interface
from android_world.env.device_facts import sms as sms_facts
from android_world.env.json_action import JSONAction
from android_world.task_evals import answer_check, task_eval, upstream_pools
from android_world.task_evals import oracle_utils as ui

APP_NAME = "simple sms messenger"
PACKAGE = sms_facts.PACKAGE
SENT_WINDOW_MS = 5 * 60 * 1000

# Upstream's `user_data_generation.RANDOM_SENTENCES`, the bodies its SMS tasks draw from.
MESSAGES = list(upstream_pools.RANDOM_SENTENCES)


def random_number() -> str:
    """Upstream's `generate_random_number`: '+1' and ten digits."""
    return "+1" + "".join(random.choice("0123456789") for _ in range(10))


def now_ms(env: interface.AsyncEnv) -> int:
    return int(env.controller.device_time().timestamp() * 1000)


def was_sent(env: interface.AsyncEnv, number: str, body: str) -> bool:
    """Upstream's `was_sent` over the sent box, within five minutes of the device clock."""
    now = now_ms(env)
    wanted = sms_facts.normalize_number(number)
    return any(
        sms_facts.normalize_number(m["address"] or "") == wanted
        and answer_check.fuzzy_match(m["body"], body)
        and now - int(m["date"] or 0) <= SENT_WINDOW_MS
        for m in sms_facts.messages(env.controller, sms_facts.SENT)
    )


def receive(
    env: interface.AsyncEnv, number: str, body: str, minutes_ago: float, read: bool = False
) -> None:
    """A message arriving from `number` (what `adb emu sms send` produces)."""
    date = now_ms(env) - int(minutes_ago * 60 * 1000)
    sms_facts.insert_message(
        env.controller, number, body, msg_type=sms_facts.INBOX, date_ms=date, read=read
    )


def other_message(avoid: str) -> str:
    return random.choice([m for m in MESSAGES if m != avoid])


def first_conversation(env: interface.AsyncEnv) -> int:
    """Index of the top conversation's title (the list is most recent first)."""
    items = ui.elements(env)
    lst = ui.find(items, ui.res_is("conversations_list"), need_visible=False)
    if lst is None:
        raise RuntimeError("Oracle could not find the conversation list.")
    top = items[lst].bbox_pixels
    assert top is not None
    rows = [
        i
        for i, e in enumerate(items)
        if e.resource_name == "android:id/title"
        and e.bbox_pixels is not None
        and e.bbox_pixels.y_min >= top.y_min
        and ui.visible(e)
    ]
    if not rows:
        raise RuntimeError("Oracle found no conversation rows.")
    return min(rows, key=lambda i: items[i].bbox_pixels.y_min)  # type: ignore[union-attr]


def send_in_thread(env: interface.AsyncEnv, message: str) -> Iterator[JSONAction]:
    yield ui.type_into(env, ui.hint_is("Type a message"), message, "the message box")
    yield ui.click(env, ui.desc_is("Send"), "the Send button")


class _SimpleSmsBase(task_eval.TaskEval):
    """Upstream's base: a message with this body was sent to this number, from this app."""

    app_names = (APP_NAME,)
    complexity = 1.2
    schema = {
        "type": "object",
        "properties": {"number": {"type": "string"}, "message": {"type": "string"}},
        "required": ["number", "message"],
    }
    template = ""
    difficulty = "medium"
    tags: tuple[str, ...] = ("parameterized",)
    optimal_steps = 6

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"number": random_number(), "message": random.choice(MESSAGES)}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        sms_facts.clear_messages(env.controller)
        env.controller.close_recents()

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        in_app = env.controller.foreground_package() == PACKAGE
        return (
            1.0 if in_app and was_sent(env, self.params["number"], self.params["message"]) else 0.0
        )

    def tear_down(self, env: interface.AsyncEnv) -> None:
        sms_facts.clear_messages(env.controller)
        super().tear_down(env)


class SimpleSmsSend(_SimpleSmsBase):
    """Send a new message from the floating button."""

    template = "Send a text message using Simple SMS Messenger to {number} with message: {message}"

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield ui.open_app("Simple SMS Messenger")
        yield ui.click(env, ui.desc_is("New conversation"), "the New conversation button")
        yield ui.type_into(
            env, ui.hint_is("Add Contact or Number…"), self.params["number"], "the number field"
        )
        yield from send_in_thread(env, self.params["message"])
        yield ui.done()


class SimpleSmsReplyMostRecent(_SimpleSmsBase):
    """Reply in the most recent conversation; 0-5 older ones come from other numbers."""

    template = (
        "Reply to the most recent text message using Simple SMS Messenger with message: {message}"
    )
    difficulty = "medium"
    optimal_steps = 5

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        message = self.params["message"]
        for i in range(random.randint(0, 5)):
            receive(env, random_number(), other_message(message), minutes_ago=30 - i * 4)
        receive(env, self.params["number"], other_message(message), minutes_ago=1)

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield ui.open_app("Simple SMS Messenger")
        yield JSONAction(action_type="click", index=first_conversation(env))
        yield from send_in_thread(env, self.params["message"])
        yield ui.done()


class SimpleSmsReply(_SimpleSmsBase):
    """Reply to one number, whose text sits somewhere among others (any pool sentence)."""

    template = "Reply to {number} with message: {message} in Simple SMS Messenger"
    difficulty = "easy"
    tags = ("search", "data_entry", "parameterized")
    optimal_steps = 4

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        others = random.randint(1, 5)
        slot = random.randint(0, others)
        for i in range(others + 1):
            number = self.params["number"] if i == slot else random_number()
            receive(env, number, random.choice(MESSAGES), minutes_ago=40 - i * 5)

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield ui.open_app("Simple SMS Messenger")
        index = yield from ui.scroll_to(
            env, ui.text_is(self.params["number"]), self.params["number"]
        )
        yield JSONAction(action_type="click", index=index)
        yield from send_in_thread(env, self.params["message"])
        yield ui.done()
