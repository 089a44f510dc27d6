"""Upstream's tasks that start from a picture in Simple Gallery Pro (`single/simple_gallery_pro.py`,
`single/markor.py`'s MarkorTranscribeReceipt, `single/expense.py`'s ExpenseAddMultipleFromGallery).

Set-up clears the shared storage and writes the pictures as real image files where upstream
writes them (`/sdcard/DCIM`): a receipt drawn from upstream's receipt pools, or the wanted rows
as text set on a picture. Checks are upstream's: a file named so in Download; receipt.md in
Markor whose text fuzzy-matches the receipt's transactions as csv; the expense table gained
exactly the rows the picture lists.

Reading a picture: the gallery shows it as pixels only (no text in the accessibility tree), as
the real app does. The reference solutions open the picture on screen, as a person would, and
then type what it says; they take those values from the task's params, which hold exactly what
the picture shows (tests prove tesseract reads the same values off the phone's screen).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from android_world.env import device, interface
from android_world.env.json_action import JSONAction
from android_world.task_evals import gallery_images, task_eval
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals.single.expense import add_via_form, rows_as_text
from android_world.task_evals.single.expense_more import ExpenseAddMultiple
from android_world.task_evals.single.files import fuzzy_match, random_file_name
from android_world.task_evals.single.markor import NOTEBOOK, editor_index, new_file_dialog
from android_world.task_evals.single.pictures import (
    NOISE_PICTURES,
    PICTURE_NOTE,
    clear_shared_storage,
    open_picture,
    wrap_values,
    write_picture,
)
from android_world.task_evals.single.table_tasks import NOISE_ROW_OBJECTS, ROW_OBJECTS

# ---- tasks ----------------------------------------------------------------------------------------


class SaveCopyOfReceiptTaskEval(task_eval.TaskEval):
    """Copy a receipt picture from DCIM into Download with its name; only its being there is
    checked, as upstream (not its content)."""

    app_names = ("simple gallery pro",)
    complexity = 1.6
    template = (
        "In Simple Gallery Pro, copy {file_name} in DCIM and save a copy with the same name in"
        " Download"
    )
    schema: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
    difficulty = "hard"
    tags = ("parameterized", "complex_ui_understanding")
    optimal_steps = 8
    fidelity_notes = (
        "params keep the receipt as data (seller, slogan, lines), drawn into the picture at"
        " set-up; upstream keeps a PIL image",
        PICTURE_NOTE,
    )

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        receipt = gallery_images.random_receipt()
        return {"receipt_image": receipt, "file_name": f"receipt_{random_file_name()}.jpg"}

    def upstream_params(self) -> dict[str, Any]:
        """The params as upstream keeps them: the receipt as its picture."""
        picture = gallery_images.receipt_image(self.params["receipt_image"])
        return {**self.params, "receipt_image": picture}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        clear_shared_storage(env)
        image = gallery_images.receipt_image(self.params["receipt_image"])
        write_picture(env, self.params["file_name"], image)
        env.controller.close_recents()

    def tear_down(self, env: interface.AsyncEnv) -> None:
        super().tear_down(env)
        clear_shared_storage(env)

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        names = env.controller.list_dir(device.DOWNLOAD_DATA)
        return 1.0 if self.params["file_name"] in names else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield from open_picture(env, self.params["file_name"])
        yield ui.tap(env, desc="More options")
        yield ui.tap(env, text="Copy to")
        yield ui.tap(env, text="Other folder")
        index = yield from ui.scroll_to(env, ui.text_is("Download"), "the Download folder")
        yield JSONAction(action_type="click", index=index)
        yield ui.tap(env, text="OK")
        yield ui.done()


class MarkorTranscribeReceipt(task_eval.TaskEval):
    """receipt.png (1-5 transactions) in DCIM; receipt.md in Markor must hold its transactions
    as csv with the header, fuzzy-matched (ratio >= 0.9) as upstream's CreateFile check."""

    app_names = ("simple gallery pro", "markor")
    complexity = 1.8
    template = (
        "Create a file in Markor, called receipt.md with the transactions from the receipt.png."
        " Use Simple Gallery to view the receipt. Please enter transactions in csv format"
        ' including the header "Date, Item, Amount".'
    )
    schema = {
        "type": "object",
        "properties": {"file_name": {"type": "string"}, "text": {"type": "string"}},
        "required": ["file_name", "text"],
    }
    difficulty = "medium"
    tags = (
        "transcription",
        "data_entry",
        "multi_app",
        "screen_reading",
        "memorization",
        "parameterized",
    )
    optimal_steps = 9
    fidelity_notes = (
        "params keep the receipt as data under 'img' (upstream: a PIL image it pops from"
        " params), drawn into receipt.png at set-up",
        PICTURE_NOTE,
    )
    PICTURE = "receipt.png"

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        receipt = gallery_images.random_receipt(random.randint(1, 5))
        text = "\n".join(gallery_images.receipt_text(receipt).split("\n")[2:])  # no seller
        return {"img": receipt, "file_name": "receipt.md", "text": text}

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        clear_shared_storage(env)
        write_picture(env, self.PICTURE, gallery_images.receipt_image(self.params["img"]))
        env.controller.close_recents()

    def tear_down(self, env: interface.AsyncEnv) -> None:
        super().tear_down(env)
        clear_shared_storage(env)

    def is_successful(self, env: interface.AsyncEnv) -> float:
        super().is_successful(env)
        path = f"{NOTEBOOK}/{self.params['file_name']}"
        if self.params["file_name"] not in env.controller.list_dir(NOTEBOOK):
            return 0.0
        content = env.controller.read_text(path).replace("\r", "").strip()
        return 1.0 if fuzzy_match(content, self.params["text"]) else 0.0

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield from open_picture(env, self.PICTURE)
        # What the receipt on screen says, as a person reads it: the params hold those lines.
        lines = self.params["text"]
        yield ui.open_app("Markor")
        yield from new_file_dialog(env, self.params["file_name"])
        yield ui.tap(env, text="OK")
        yield JSONAction(action_type="input_text", index=editor_index(env), text=lines)
        yield ui.tap(env, desc="Save")
        yield ui.done()


class ExpenseAddMultipleFromGallery(ExpenseAddMultiple):
    """expenses.jpg lists three expenses (text blocks); ten old_expenses_<i>.jpg list the ten
    noise rows, which are also in the app already. The three must be added (upstream's rule)."""

    app_names = ("pro expense", "simple gallery pro")
    complexity = 6
    n_rows = 3
    n_rows_noise = 10
    difficulty = "hard"
    tags = ("multi_app", "screen_reading", "data_entry", "information_retrieval", "parameterized")
    optimal_steps = 10
    fidelity_notes = (PICTURE_NOTE,)
    PICTURE = "expenses.jpg"

    @property
    def goal(self) -> str:
        return f"Add the expenses from {self.PICTURE} in Simple Gallery Pro to pro expense."

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        clear_shared_storage(env)
        # The amount and category print short; only a note could reach the wrap width.
        wanted = rows_as_text(wrap_values(self.params[ROW_OBJECTS], ("note",)), "text_block")
        write_picture(env, self.PICTURE, gallery_images.text_image(wanted))
        old = rows_as_text(wrap_values(self.params[NOISE_ROW_OBJECTS], ("note",)), "text_block")
        old_picture = gallery_images.text_image(old)
        for i in range(NOISE_PICTURES):
            write_picture(env, f"old_expenses_{i}.jpg", old_picture)
        env.controller.close_recents()

    def tear_down(self, env: interface.AsyncEnv) -> None:
        super().tear_down(env)
        clear_shared_storage(env)

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        yield from open_picture(env, self.PICTURE)
        yield ui.open_app("Pro Expense")
        for row in self.params[ROW_OBJECTS]:  # what the picture lists, as a person reads it
            yield from add_via_form(env, row)
        yield ui.done()
