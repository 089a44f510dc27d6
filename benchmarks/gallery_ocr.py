"""How much of a picture's text the agent's OCR reads off the simulated phone, per sim profile.

The gallery tasks' pictures (a receipt, expenses.jpg, recipes.jpg) carry their text in pixels
only; an agent reads them with OCR or vision. This opens each task's picture the way the
reference solution does and runs Celil's own `TesseractOcr` (psm 3, the agent's default) on the
screen: word recall is the share of the picture's words read (punctuation stripped, case
folded), with the words missed.

    python benchmarks/gallery_ocr.py [--profiles "default;small;large;landscape"] [--seeds 0,1,2]

Needs tesseract and pytesseract. On demand only: a frame takes seconds of OCR.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout, no install

from android_world.agents.custom.roles.celil_perception import TesseractOcr  # noqa: E402
from android_world.env.sim.sim_env import SimEnv  # noqa: E402
from android_world.task_evals import gallery_images  # noqa: E402
from android_world.task_evals.registry import TaskRegistry  # noqa: E402
from android_world.task_evals.single import expense, recipe  # noqa: E402
from android_world.task_evals.single.pictures import open_picture  # noqa: E402
from android_world.task_evals.single.table_tasks import ROW_OBJECTS  # noqa: E402

TASKS = (
    "MarkorTranscribeReceipt",
    "ExpenseAddMultipleFromGallery",
    "RecipeAddMultipleRecipesFromImage",
)


def words(text: str) -> list[str]:
    cleaned = (re.sub(r"[^\w$.\-]", "", w).lower().strip(".") for w in text.split())
    return [w for w in cleaned if w]


def picture_text(name: str, params: dict) -> str:
    """What the task's picture says (the receipt's header line is not on it, as upstream's)."""
    if name == "MarkorTranscribeReceipt":
        receipt = params["img"]
        return "\n".join(
            [receipt["company"], receipt["slogan"], *gallery_images.receipt_lines(receipt)]
        )
    if name == "ExpenseAddMultipleFromGallery":
        return expense.rows_as_text(params[ROW_OBJECTS], "text_block")
    return recipe.rows_as_text(params[ROW_OBJECTS], "text_block")


def measure(
    name: str, seed: int, profile: str, ocr: TesseractOcr
) -> tuple[float, list[str], float]:
    random.seed(seed)
    cls = TaskRegistry().get_registry()[name]
    params = cls.generate_random_params()
    params["seed"] = seed
    task = cls(params)
    env = SimEnv(profile=profile)
    try:
        task.initialize_task(env)
        for action in open_picture(env, getattr(task, "PICTURE", "receipt.png")):
            env.execute_action(action)
        start = time.perf_counter()
        read = {w for line in ocr(env.get_state().pixels) for w in words(line.text)}
        took = time.perf_counter() - start
        expected = words(picture_text(name, params))
        missed = [w for w in expected if w not in read]
        return 1 - len(missed) / len(expected), missed, took
    finally:
        task.tear_down(env)
        env.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--profiles", default="default;small;large;landscape")
    parser.add_argument("--seeds", default="0,1,2")
    args = parser.parse_args(argv)
    ocr = TesseractOcr()
    seeds = [int(s) for s in args.seeds.split(",")]
    print(f"{'profile':<11}{'task':<36}{'recall':>8}{'min':>7}{'s/frame':>9}  missed")
    for profile in [p for p in args.profiles.split(";") if p]:
        for name in TASKS:
            results = [measure(name, seed, profile, ocr) for seed in seeds]
            recalls = [r for r, _, _ in results]
            missed = sorted({w for _, m, _ in results for w in m})
            seconds = sum(t for _, _, t in results) / len(results)
            print(
                f"{profile:<11}{name:<36}{sum(recalls) / len(recalls):>8.3f}{min(recalls):>7.3f}"
                f"{seconds:>9.1f}  {' '.join(missed[:8])}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
