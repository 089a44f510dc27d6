"""Our browser task pages in a real headless Chromium: the puzzle each seed draws, and that a
solved page says "Success!" while a wrong answer does not. With `--upstream CHECKOUT`, upstream's
own pages (read from that checkout's `task_evals/single/browser.py`, never copied) run for the
same seeds and their puzzles are compared with ours and with the sim's Python replay.

    python benchmarks/browser_pages.py [--seeds 0,1,12345] [--upstream /path/to/android_world]

Needs `chromium` (or `--chromium PATH`); prints one row per page and seed. On demand only: each
page is one Chromium start (about a second).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout, no install

from android_world.env.device_facts import chrome  # noqa: E402

# Script appended to a page: the puzzle as JSON in the title (ours and upstream's variables).
_READ = {
    "maze": ("grid", "mazeLayout", "rows.map(r => r.join(''))"),
    "multiply": ("seen", "numbers", "rows"),
    "draw": ("wanted", "taskColors", "rows"),
}
_UPSTREAM_CLASSES = {"maze": "BrowserMaze", "multiply": "BrowserMultiply", "draw": "BrowserDraw"}

# Scripts that play a page of ours: `good` solves it, else a plausible wrong attempt.
_PLAY = {
    "maze": """
const steps = {up: [-1, 0], down: [1, 0], left: [0, -1], right: [0, 1]};
const queue = [[[0, 0], []]]; const seen = new Set(["0,0"]); let path = [];
while (queue.length) { const [[r, c], p] = queue.shift(); if (grid[r][c] === "$") { path = p; break; }
  for (const [k, [dr, dc]] of Object.entries(steps)) { const nr = r + dr, nc = c + dc;
    if (nr < 0 || nc < 0 || nr >= SIZE || nc >= SIZE || grid[nr][nc] === "#" || seen.has(nr + "," + nc)) continue;
    seen.add(nr + "," + nc); queue.push([[nr, nc], p.concat([k])]); } }
for (const k of (GOOD ? path : path.slice(0, -1))) document.querySelector("[data-move=" + k + "]").click();
""",
    "multiply": """
const got = [];
for (let i = 0; i < 5; i++) { got.push(parseInt(document.getElementById("shown").textContent));
  document.getElementById("more").click(); }
document.getElementById("answer").value = String(got.reduce((a, b) => a * b, 1) + (GOOD ? 0 : 1));
document.getElementById("submit").click();
""",
    "draw": """
const buttons = [...document.querySelectorAll(".paint")];
wanted.slice(0, GOOD ? 3 : 2).forEach((color, k) => {
  buttons[PALETTE.indexOf(color)].click();
  const b = canvas.getBoundingClientRect();
  const at = (type, x, y) => canvas.dispatchEvent(
      new PointerEvent(type, {clientX: b.left + x, clientY: b.top + y, bubbles: true}));
  at("pointerdown", 20, 20 + 40 * k); at("pointermove", 200, 40 + 40 * k);
  at("pointermove", 250, 90 + 40 * k); at("pointerup", 250, 90 + 40 * k); });
document.getElementById("submit").click();
""",
}


def run_page(chromium: str, html: str, folder: Path) -> str:
    page = folder / "page.html"
    page.write_text(html, encoding="utf-8")
    out = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return out.stdout


def title_json(dom: str):
    found = re.search(r"<title>R:([^<]*)</title>", dom)
    return json.loads(found.group(1).replace("&amp;", "&")) if found else None


def read_puzzle(chromium: str, html: str, variable: str, shape: str, folder: Path, kind: str):
    clicks = (
        "for (let i = 0; i < 4; i++) (window.handleButtonClick || "
        "(() => document.getElementById('more').click()))();"
        if kind == "multiply"
        else ""
    )
    script = f"<script>{clicks}const rows = {variable}; document.title = 'R:' + JSON.stringify({shape});</script>"
    return title_json(run_page(chromium, html.replace("</body>", script + "</body>"), folder))


def succeeded(chromium: str, kind: str, seed: int, good: bool, folder: Path) -> bool:
    """Whether the page's visible text says "Success!" after the play (scripts are not text)."""
    shown = "document.title = 'R:' + JSON.stringify(document.body.innerText.includes('Success!'));"
    script = f"<script>const GOOD = {str(good).lower()};{_PLAY[kind]}{shown}</script>"
    html = chrome.page_html(kind, seed).replace("</body>", script + "</body>")
    return title_json(run_page(chromium, html, folder)) is True


def upstream_pages(checkout: Path) -> dict[str, str]:
    source = (checkout / "android_world/task_evals/single/browser.py").read_text(encoding="utf-8")
    pages = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if (
                    isinstance(item, ast.Assign)
                    and getattr(item.targets[0], "id", "") == "HTML"
                    and isinstance(item.value, ast.Constant)
                    and item.value.value
                ):
                    pages[node.name] = item.value.value
    return pages


def python_puzzle(kind: str, seed: int):
    if kind == "maze":
        return list(chrome.maze(seed))
    if kind == "multiply":
        return list(chrome.multiply_numbers(seed))
    return list(chrome.draw_colors(seed))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seeds", default="0,1,12345,4294967295")
    parser.add_argument("--upstream", type=Path, default=None, help="an upstream checkout")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    args = parser.parse_args(argv)
    if shutil.which(args.chromium) is None and not Path(args.chromium).exists():
        print(
            f"error: {args.chromium!r} not found; install chromium or pass --chromium",
            file=sys.stderr,
        )
        return 2
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    theirs = upstream_pages(args.upstream) if args.upstream else {}
    failures = 0
    print(f"{'page':<9}{'seed':>12}  ours=python  upstream=ours  solved  wrong")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for kind in chrome.PAGE_KINDS:
            ours_var, their_var, shape = _READ[kind]
            for seed in seeds:
                ours = read_puzzle(
                    args.chromium, chrome.page_html(kind, seed), ours_var, shape, folder, kind
                )
                same = ours == python_puzzle(kind, seed)
                upstream = "-"
                if theirs:
                    html = theirs[_UPSTREAM_CLASSES[kind]].replace("%%SEED%%", str(seed))
                    their = read_puzzle(args.chromium, html, their_var, shape, folder, kind)
                    upstream = "yes" if their == ours else "NO"
                solved = succeeded(args.chromium, kind, seed, True, folder)
                wrong = succeeded(args.chromium, kind, seed, False, folder)
                failures += (not same) + (upstream == "NO") + (not solved) + wrong
                print(
                    f"{kind:<9}{seed:>12}  {'yes' if same else 'NO':<11}  {upstream:<13}  "
                    f"{'Success' if solved else 'none':<7} {'Success' if wrong else 'none'}"
                )
    print(f"{failures} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
