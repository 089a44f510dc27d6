"""More of upstream's system tasks (`single/system.py`): copy a text to the clipboard.

The check is upstream's: the clipboard fuzzy-matches the text (reset to a marker before and
after). Any text field will do on a phone; the oracle types the text into Contacts' search box
(no side effects) and copies it with the field's long-press menu.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from android_world.env import interface
from android_world.env.json_action import JSONAction
from android_world.task_evals import answer_check, task_eval
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.single.contacts import open_contacts

CLIPBOARD_RESET = "~~~RESET~~~"

# Upstream's pool of texts to copy.
CLIPBOARD_TEXTS = (
    "1234 Elm St, Springfield, IL",
    "Acme Corp, Suite 200",
    "john.doe@example.com",
    "Jane's Flower Shop",
    "Call me at 555-1234",
    "Order No: A123456",
    "Reservation under: Jane",
    "Discount code: SAVE20",
    "Membership ID: XYZ789",
    "Invoice #98765",
    "Tracking #: 1Z204E2A",
    "Transaction ID: abc123",
    "9876 Pine Ave, Riverside, CA",
    "Global Tech, Floor 3",
    "jane.smith@example.com",
    "Mike's Grocery Store",
    "Text me at 555-6789",
    "Order No: B654321",
    "Reservation under: Mike",
    "Promo code: DEAL30",
    "Membership ID: ABC123",
    "Invoice #54321",
    "Tracking #: 3H488Y2B",
    "Transaction ID: def456",
    "2554 Oak Street, Boston, MA",
    "Innovate Inc, Room 10",
    "alex.jordan@example.net",
    "Sara's Bakery",
    "Reach out at 555-9101",
    "Order No: C987654",
    "Reservation under: Sara",
    "Coupon code: OFF50",
    "Membership ID: LMN456",
    "Invoice #32198",
    "Tracking #: 5K672F4C",
    "Transaction ID: ghi789",
)


class SystemCopyToClipboard(task_eval.TaskEval):
    app_names = ("clipper",)
    complexity = 1
    difficulty = "easy"
    tags = ("data_entry", "parameterized")
    optimal_steps = 2
    fidelity_notes = (
        "the sim has no Clipper app: text is copied with a text field's long-press Copy (which"
        " copies the whole field, the sim having no cursor)",
    )
    schema = {
        "type": "object",
        "properties": {"clipboard_content": {"type": "string"}},
        "required": ["clipboard_content"],
    }
    template = "Copy the following text to the clipboard: {clipboard_content}"

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"clipboard_content": random.choice(CLIPBOARD_TEXTS)}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        env.controller.set_clipboard(CLIPBOARD_RESET)
        env.controller.close_recents()

    def is_successful(self, env: interface.AsyncEnv) -> float:
        copied = env.controller.get_clipboard()
        return 1.0 if answer_check.fuzzy_match(self.params["clipboard_content"], copied) else 0.0

    def tear_down(self, env: interface.AsyncEnv) -> None:
        super().tear_down(env)
        env.controller.set_clipboard(CLIPBOARD_RESET)

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield from open_contacts(env)
        yield ui.tap(env, text="Search contacts")
        field = ui.require(env, ui.hint_is("Search contacts"), "the search field")
        yield JSONAction(
            action_type="input_text", index=field, text=self.params["clipboard_content"]
        )
        field = ui.require(env, ui.hint_is("Search contacts"), "the search field")
        yield JSONAction(action_type="long_press", index=field)
        yield ui.tap(env, text="Copy")
        yield ui.done()
