"""Tasks spanning two apps (upstream `composite/markor_sms.py`).

MarkorCreateNoteAndSms scores half for the note (the file exists in the Markor notebook and
its text fuzzy-matches) and half for the SMS (sent to the number with the note's text, from
Simple SMS Messenger), as upstream averages its two sub-checks.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from android_world.env import device, interface
from android_world.env.device_facts import sms as sms_facts
from android_world.env.json_action import JSONAction
from android_world.task_evals import answer_check, task_eval
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.single import markor, sms

NOTEBOOK = device.MARKOR_DATA


def _clear_notebook(env: interface.AsyncEnv) -> None:
    for name in env.controller.list_dir(NOTEBOOK):
        env.controller.remove(f"{NOTEBOOK}/{name}")
    env.controller.make_dirs(NOTEBOOK)


class MarkorCreateNoteAndSms(task_eval.TaskEval):
    """Write a note in Markor, then text its content to a number."""

    app_names = ("markor", "simple sms messenger")
    complexity = 1.8
    schema = {
        "type": "object",
        "properties": {
            "file_name": {"type": "string"},
            "text": {"type": "string"},
            "number": {"type": "string"},
        },
        "required": ["file_name", "text", "number"],
    }
    template = (
        "Create a new note in Markor named {file_name} with the following text:"
        " {text}. Share the entire content of the note with the phone number"
        " {number} via SMS using Simple SMS Messenger"
    )
    difficulty = "hard"
    tags = ("multi_app", "data_entry", "parameterized")
    optimal_steps = 9

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        note = markor.MarkorCreateNote.generate_random_params()
        return {"file_name": note["file_name"], "text": note["text"], "number": sms.random_number()}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        _clear_notebook(env)
        sms_facts.clear_messages(env.controller)
        env.controller.close_recents()

    def note_done(self, env: interface.AsyncEnv) -> bool:
        path = f"{NOTEBOOK}/{self.params['file_name']}"
        if not env.controller.exists(path) or env.controller.is_dir(path):
            return False
        content = env.controller.read_text(path).replace("\r", "").strip()
        return answer_check.fuzzy_match(content, self.params["text"])

    def sms_done(self, env: interface.AsyncEnv) -> bool:
        in_app = env.controller.foreground_package() == sms_facts.PACKAGE
        return in_app and sms.was_sent(env, self.params["number"], self.params["text"])

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        return (float(self.note_done(env)) + float(self.sms_done(env))) / 2.0

    def tear_down(self, env: interface.AsyncEnv) -> None:
        _clear_notebook(env)
        sms_facts.clear_messages(env.controller)
        super().tear_down(env)

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        p = self.params
        yield ui.open_app("Markor")
        yield ui.click(env, ui.desc_is("Create a new file or folder"), "Markor's + button")
        yield ui.type_into(env, ui.hint_is("Name"), p["file_name"], "the file name field")
        yield ui.click(env, ui.text_is("OK"), "OK")
        yield ui.type_into(env, lambda e: bool(e.is_editable), p["text"], "the note editor")
        yield ui.click(env, ui.desc_is("Save"), "Markor's Save button")
        yield ui.open_app("Simple SMS Messenger")
        yield ui.click(env, ui.desc_is("New conversation"), "the New conversation button")
        yield ui.type_into(
            env, ui.hint_is("Add Contact or Number…"), p["number"], "the number field"
        )
        yield from sms.send_in_thread(env, p["text"])
        yield ui.done()
