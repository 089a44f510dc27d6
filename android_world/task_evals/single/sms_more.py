"""More of upstream's Simple SMS Messenger tasks (`single/sms.py`): send the clipboard, forward
a received address to a contact, resend the last sent message.

Checks are upstream's, over the sms table: a sent message (type 2) to the number whose body
fuzzy-matches, within five minutes of the device clock, with the app in front; `SimpleSmsResend`
instead compares the sent box before and after (one more message, and the newest one repeats
the message sent before). Contacts are rows of the contacts provider, which the app shows by
name. Oracles read names, bubbles and fields from the screen.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from android_world.env import interface
from android_world.env.device_facts import sms as sms_facts
from android_world.env.json_action import JSONAction
from android_world.task_evals import answer_check
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.single import contacts
from android_world.task_evals.single.sms import (
    MESSAGES,
    _SimpleSmsBase,
    now_ms,
    random_number,
    receive,
    send_in_thread,
)

SMS_APP = "Simple SMS Messenger"
GLITCH = "Sorry, there was a glitch, what was the last message you sent me?"

# Upstream's `generate_random_address` pool.
ADDRESSES = (
    "123 Main St Girdwood, AK, 99587",
    "6 Elm St, Birmingham, AL, 35217",
    "789 E Oak St, Phoenix AZ 85006",
    "1011 S Maple St, Little Rock, AR, 72204",
    "1415 W Cedar Ave Denver, CO, 80223",
    "968 Spruce St, Hartford, CT, 06103",
    "1819 Birch Ct, Dover, DE, 19901",
    "2021 Poplar St, Atlanta, GA, 30340",
)


def sent_box(env: interface.AsyncEnv) -> list[dict[str, Any]]:
    """`content query --uri content://sms/sent`: newest first."""
    return sms_facts.messages(env.controller, sms_facts.SENT)


def same_sms(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Upstream's `sms_are_equal`: same number (dashes, spaces ignored), fuzzy-equal body."""
    return sms_facts.normalize_number(a["address"] or "") == sms_facts.normalize_number(
        b["address"] or ""
    ) and answer_check.fuzzy_match(a["body"] or "", b["body"] or "")


# ---- oracle helpers (screen only) ------------------------------------------------------------


def open_conversation(env: interface.AsyncEnv, title: str) -> Iterator[JSONAction]:
    index = yield from ui.scroll_to(env, ui.text_is(title), repr(title))
    yield JSONAction(action_type="click", index=index)


def bubbles(env: interface.AsyncEnv) -> list[tuple[str, bool]]:
    """(text, sent by me) of the message bubbles on screen, oldest first: sent bubbles hug the
    list's right edge, received ones its left edge."""
    items = ui.elements(env)
    lst = ui.find(items, ui.res_is("thread_messages_list"), need_visible=False)
    if lst is None or items[lst].bbox_pixels is None:
        return []
    left, right = items[lst].bbox_pixels.x_min, items[lst].bbox_pixels.x_max
    found = []
    for element in items:
        box = element.bbox_pixels
        if element.resource_name == "thread_message_body" and box is not None:
            found.append((box.y_min, element.text or "", box.x_min - left > right - box.x_max))
    return [(text, mine) for _, text, mine in sorted(found)]


# ---- tasks -----------------------------------------------------------------------------------


class SimpleSmsSendClipboardContent(_SimpleSmsBase):
    app_names = ("simple sms messenger", "clipper")
    complexity = 1.2
    difficulty = "easy"
    tags = ("data_entry", "parameterized")
    optimal_steps = 6
    template = "Send a message to {number} with the clipboard content in Simple SMS Messenger"

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"number": random_number(), "message": random.choice(MESSAGES)}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        env.controller.set_clipboard(self.params["message"])

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield ui.open_app(SMS_APP)
        yield ui.click(env, ui.desc_is("New conversation"), "the New conversation button")
        yield ui.type_into(
            env, ui.hint_is("Add Contact or Number…"), self.params["number"], "the number field"
        )
        box = ui.require(env, ui.hint_is("Type a message"), "the message box")
        yield JSONAction(action_type="long_press", index=box)
        yield ui.tap(env, text="Paste")
        yield ui.click(env, ui.desc_is("Send"), "the Send button")
        yield ui.done()


class _SmsWithContacts(_SimpleSmsBase):
    """Contacts are seeded for the task and deleted afterwards (upstream's delete_contacts)."""

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        contacts.clear_contacts(env)

    def tear_down(self, env: interface.AsyncEnv) -> None:
        contacts.clear_contacts(env)
        super().tear_down(env)


class SimpleSmsSendReceivedAddress(_SmsWithContacts):
    """name2 texted an address; it must be sent on to name1 (a contact with no conversation)."""

    complexity = 1.8
    difficulty = "medium"
    tags = ("information_retrieval", "parameterized")
    optimal_steps = 9
    fidelity_notes = (
        "name2 is drawn again when it is name1 (upstream means to exclude name1's words, but its"
        " split has swapped arguments, so the two contacts can share a name there); every other"
        " draw is upstream's",
        "contacts are cleared before seeding as well as after (upstream: after only)",
    )
    schema = {
        "type": "object",
        "properties": {
            "name1": {"type": "string"},
            "number": {"type": "string"},
            "name2": {"type": "string"},
            "message": {"type": "string"},
        },
        "required": ["name1", "number", "name2", "message"],
    }
    template = (
        "Text the address of the event to {name1} that {name2} just sent me in Simple SMS Messenger"
    )

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        # Upstream's order: both names, then the number.
        name1 = contacts.random_name()
        name2 = contacts.random_name(excluding=name1)
        return {
            "name1": name1,
            "number": random_number(),
            "name2": name2,
            "message": random.choice(ADDRESSES),
        }

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        sender = random_number()
        contacts.seed_contact(env, self.params["name1"], self.params["number"])
        contacts.seed_contact(env, self.params["name2"], sender)
        receive(env, sender, self.params["message"], minutes_ago=1)
        env.controller.close_recents()

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield ui.open_app(SMS_APP)
        yield from open_conversation(env, self.params["name2"])
        received = [text for text, mine in bubbles(env) if not mine]
        if not received:
            raise RuntimeError("Oracle found no received message in the conversation.")
        yield ui.tap(env, desc="Navigate up")
        yield ui.click(env, ui.desc_is("New conversation"), "the New conversation button")
        yield ui.type_into(
            env, ui.hint_is("Add Contact or Number…"), self.params["name1"], "the recipient field"
        )
        yield from send_in_thread(env, received[-1])
        yield ui.done()


class SimpleSmsResend(_SmsWithContacts):
    """A message went to a contact, who answered that it did not arrive; the same message must
    go again (the sent box grows by one, and its newest message equals the earlier one)."""

    complexity = 1.2
    difficulty = "medium"
    tags = ("parameterized",)
    optimal_steps = 6
    fidelity_notes = (
        "the first message is written to the sent box as sent (upstream sends it through the"
        " emulator's modem); contacts are cleared before seeding as well as after",
    )
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "number": {"type": "string"},
            "message": {"type": "string"},
        },
        "required": ["name", "number", "message"],
    }
    template = "Resend the message I just sent to {name} in Simple SMS Messenger"

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {
            "name": contacts.random_name(),
            "number": random_number(),
            "message": random.choice(MESSAGES),
        }

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        contacts.seed_contact(env, self.params["name"], self.params["number"])
        sms_facts.insert_message(
            env.controller,
            self.params["number"],
            self.params["message"],
            msg_type=sms_facts.SENT,
            date_ms=now_ms(env) - 2 * 60 * 1000,
        )
        receive(env, self.params["number"], GLITCH, minutes_ago=1)
        self.before = sent_box(env)
        env.controller.close_recents()

    def is_successful(self, env: interface.AsyncEnv) -> float:
        if not self.initialized:
            raise RuntimeError(f"{self.name} is not initialized.")
        after = sent_box(env)
        if len(after) != len(self.before) + 1:
            return 0.0
        return 1.0 if same_sms(after[0], self.before[-1]) else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield ui.open_app(SMS_APP)
        yield from open_conversation(env, self.params["name"])
        mine = [text for text, sent in bubbles(env) if sent]
        if not mine:
            raise RuntimeError("Oracle found no sent message in the conversation.")
        yield from send_in_thread(env, mine[-1])
        yield ui.done()
