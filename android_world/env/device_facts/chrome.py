"""Chrome, and the local pages upstream's browser tasks open (`task.html` in Download).

Upstream's BrowserDraw, BrowserMaze and BrowserMultiply each write one self-contained page whose
script draws its puzzle from the task's seed with a linear congruential generator (multiplier
1664525, increment 1013904223, modulus 2**32), so one seed is one instance. We write pages of our
own with the same puzzles, the same generator used in the same order, and the same visible texts
("Up", "Click Me", "Enter the product", "Submit", "Success!"), plus two meta tags naming the page
and its seed. A real Chrome runs the page's script; the simulated Chrome reads the tags and
draws the page from the functions below, which replay the script's draws. Both show "Success!"
exactly when upstream's page would.
"""

from __future__ import annotations

import dataclasses
import html
import re

from android_world.env import device

PACKAGE = "com.android.chrome"
ACTIVITY = "com.google.android.apps.chrome.Main"
DATA_DIR = f"/data/data/{PACKAGE}"
# Written once the first-run screens are through; clearing the app's data brings them back.
FIRST_RUN_DONE = f"{DATA_DIR}/shared_prefs/first_run_done"

TASK_PAGE = f"{device.DOWNLOAD_DATA}/task.html"
SUCCESS_TEXT = "Success!"
PAGE_KINDS = ("draw", "maze", "multiply")
PAGE_TITLES = {"draw": "Color Challenge", "maze": "Maze Puzzle", "multiply": "Memory Task"}

MAZE_SIZE = 4
WALL, OPEN, GOAL = "#", " ", "$"
MULTIPLY_CLICKS = 5  # the numbers shown: one at load, one per click until the fifth
# The draw page's palette, in its order (upstream's page), as lower-case #rrggbb.
AVAILABLE_COLORS: tuple[str, ...] = (
    "#ff0000",
    "#00ff00",
    "#0000ff",
    "#ffff00",
    "#ff00ff",
    "#00ffff",
    "#800000",
    "#008000",
    "#000080",
    "#808000",
    "#800080",
    "#008080",
    "#ffa500",
    "#ff1493",
    "#9932cc",
    "#20b2aa",
    "#4b0082",
    "#00ff7f",
    "#ff6347",
    "#00ced1",
    "#9400d3",
    "#f0e68c",
    "#ff8c00",
    "#228b22",
)
TASK_COLOR_COUNT = 3
CANVAS_SIZE = 300  # the draw page's canvas, in CSS pixels (square)
DEFAULT_STROKE = "#000000"  # a canvas context's stroke colour before any palette tap

_MODULUS = 2**32


class PageRng:
    """The pages' generator: each draw is the next state over 2**32, in [0, 1)."""

    def __init__(self, seed: int):
        self.state = int(seed)

    def random(self) -> float:
        self.state = (1664525 * self.state + 1013904223) % _MODULUS
        return self.state / _MODULUS

    def below(self, n: int) -> int:
        """`Math.floor(random() * n)`."""
        return int(self.random() * n)


def maze(seed: int) -> tuple[str, ...]:
    """The maze's rows ('#' wall, ' ' open, '$' the goal at the bottom right).

    A depth-first carve from the top-left cell: pop a cell, open it, stop at the goal, else
    shuffle the one direction list (the shuffle carries over from cell to cell) and push each
    in-bounds neighbour that is still a wall."""
    rng = PageRng(seed)
    cells = [[WALL] * MAZE_SIZE for _ in range(MAZE_SIZE)]
    directions = [(-1, 0), (1, 0), (0, -1), (0, 1)]
    stack = [(0, 0)]
    goal = (MAZE_SIZE - 1, MAZE_SIZE - 1)
    while stack:
        row, col = stack.pop()
        cells[row][col] = OPEN
        if (row, col) == goal:
            break
        for i in range(len(directions) - 1, 0, -1):
            j = rng.below(i + 1)
            directions[i], directions[j] = directions[j], directions[i]
        for d_row, d_col in directions:
            r, c = row + d_row, col + d_col
            if 0 <= r < MAZE_SIZE and 0 <= c < MAZE_SIZE and cells[r][c] == WALL:
                stack.append((r, c))
    cells[0][0] = OPEN
    cells[goal[0]][goal[1]] = GOAL
    return tuple("".join(row) for row in cells)


MOVES = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}


def maze_step(layout: tuple[str, ...], at: tuple[int, int], move: str) -> tuple[int, int]:
    """Where the X goes for a direction button: off the grid or into a wall, nowhere."""
    d_row, d_col = MOVES[move]
    row, col = at[0] + d_row, at[1] + d_col
    if 0 <= row < len(layout) and 0 <= col < len(layout[row]) and layout[row][col] != WALL:
        return (row, col)
    return at


def multiply_numbers(seed: int) -> tuple[int, ...]:
    """The numbers the multiply page shows, in order (each 1..10)."""
    rng = PageRng(seed)
    return tuple(rng.below(10) + 1 for _ in range(MULTIPLY_CLICKS))


def draw_colors(seed: int) -> tuple[str, ...]:
    """The draw page's three task colours: drawn without repeats from the palette."""
    rng = PageRng(seed)
    remaining = list(AVAILABLE_COLORS)
    chosen = []
    for _ in range(TASK_COLOR_COUNT):
        chosen.append(remaining.pop(rng.below(len(remaining))))
    return tuple(chosen)


def hex_color(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def file_url(path: str) -> str:
    return f"file://{path}"


# ---- the page files ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Page:
    """What a task page file says about itself."""

    kind: str
    seed: int


_META = re.compile(r'<meta name="celil-(page|seed)" content="([a-z0-9]{1,20})">')


def read_page(text: str) -> Page | None:
    """The page named by a file's meta tags (None for any other file)."""
    found = dict(m.groups() for m in _META.finditer(text[:4096]))
    kind, seed = found.get("page"), found.get("seed")
    if kind not in PAGE_KINDS or seed is None or not seed.isdigit():
        return None
    return Page(kind, int(seed))


_RNG_JS = """
function pageRng(seed) {
  let state = seed;
  return function () {
    state = (1664525 * state + 1013904223) % 4294967296;
    return state / 4294967296;
  };
}
"""

_MAZE_BODY = """
<div id="board"></div>
<div class="pad">
  <button data-move="up">Up</button><button data-move="down">Down</button>
  <button data-move="left">Left</button><button data-move="right">Right</button>
</div>
<script>
%(rng)s
const SIZE = %(size)d;
const next = pageRng(%(seed)d);
const grid = [];
for (let r = 0; r < SIZE; r++) grid.push(new Array(SIZE).fill("#"));
const turns = [[-1, 0], [1, 0], [0, -1], [0, 1]];
const todo = [[0, 0]];
while (todo.length) {
  const [r, c] = todo.pop();
  grid[r][c] = " ";
  if (r === SIZE - 1 && c === SIZE - 1) break;
  for (let i = turns.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [turns[i], turns[j]] = [turns[j], turns[i]];
  }
  for (const [dr, dc] of turns) {
    const nr = r + dr, nc = c + dc;
    if (nr >= 0 && nr < SIZE && nc >= 0 && nc < SIZE && grid[nr][nc] === "#") todo.push([nr, nc]);
  }
}
grid[0][0] = " ";
grid[SIZE - 1][SIZE - 1] = "$";
let at = [0, 0];
function draw() {
  const board = document.getElementById("board");
  board.innerHTML = "";
  grid.forEach((cells, r) => {
    const line = document.createElement("div");
    line.className = "line";
    cells.forEach((cell, c) => {
      const box = document.createElement("div");
      box.className = "cell" + (cell === "#" ? " wall" : cell === "$" ? " goal" : "");
      if (r === at[0] && c === at[1]) box.textContent = "X";
      line.appendChild(box);
    });
    board.appendChild(line);
  });
}
const STEP = {up: [-1, 0], down: [1, 0], left: [0, -1], right: [0, 1]};
document.querySelectorAll("[data-move]").forEach((button) => {
  button.addEventListener("click", () => {
    const [dr, dc] = STEP[button.dataset.move];
    const r = at[0] + dr, c = at[1] + dc;
    if (r < 0 || r >= SIZE || c < 0 || c >= SIZE || grid[r][c] === "#") return;
    at = [r, c];
    draw();
    if (grid[r][c] === "$") document.body.innerHTML = "<h1>Success!</h1>";
  });
});
draw();
</script>
"""

_MAZE_STYLE = """
.line { display: flex; }
.cell { width: 110px; height: 110px; border: 1px solid black; font-size: 56px;
        display: flex; align-items: center; justify-content: center; }
.wall { background: black; }
.goal { background: green; }
.pad button { font-size: 30px; padding: 15px 28px; margin: 10px 5px 0 0; }
"""

_MULTIPLY_BODY = """
<div class="page">
  <div id="shown" class="shown"></div>
  <button id="more" class="more">Click Me</button>
  <div id="form" hidden>
    <input id="answer" type="number" placeholder="Enter the product">
    <button id="submit">Submit</button>
  </div>
  <div id="result"></div>
</div>
<script>
%(rng)s
const next = pageRng(%(seed)d);
const seen = [];
let clicks = 0;
function reveal() {
  const n = Math.floor(next() * 10) + 1;
  seen.push(n);
  document.getElementById("shown").textContent = n;
}
document.getElementById("more").addEventListener("click", () => {
  clicks += 1;
  if (clicks < %(clicks)d) { reveal(); return; }
  document.getElementById("more").hidden = true;
  document.getElementById("shown").hidden = true;
  document.getElementById("form").hidden = false;
});
document.getElementById("submit").addEventListener("click", () => {
  const given = parseInt(document.getElementById("answer").value, 10);
  const product = seen.reduce((a, b) => a * b, 1);
  document.getElementById("result").innerHTML = given === product ? "<h2>Success!</h2>" : "<h2></h2>";
});
reveal();
</script>
"""

_MULTIPLY_STYLE = """
.page { text-align: center; margin-top: 50px; }
.shown { font-size: 48px; margin-bottom: 20px; }
.more { font-size: 24px; padding: 10px 20px; margin-bottom: 20px; }
#form { margin-top: 20px; }
#form input, #form button { font-size: 18px; padding: 5px; }
"""

_DRAW_BODY = """
<div id="wanted"></div>
<div><canvas id="canvas" width="%(canvas)d" height="%(canvas)d"></canvas></div>
<br>
<p>Available Colors:</p>
<div id="palette"></div>
<br>
<button id="clear">Clear</button>
<button id="submit">Submit</button>
<p id="result"></p>
<script>
%(rng)s
const next = pageRng(%(seed)d);
const PALETTE = %(palette)s;
const pool = PALETTE.slice();
const wanted = [];
for (let i = 0; i < %(count)d; i++) wanted.push(pool.splice(Math.floor(next() * pool.length), 1)[0]);
for (const color of wanted) {
  const swatch = document.createElement("div");
  swatch.className = "swatch";
  swatch.style.backgroundColor = color;
  document.getElementById("wanted").appendChild(swatch);
}
const canvas = document.getElementById("canvas");
const pen = canvas.getContext("2d");
for (const color of PALETTE) {
  const button = document.createElement("button");
  button.className = "paint";
  button.style.backgroundColor = color;
  button.addEventListener("click", () => { pen.strokeStyle = color; });
  document.getElementById("palette").appendChild(button);
}
let last = null;
function point(event) {
  const box = canvas.getBoundingClientRect();
  return [(event.clientX - box.left) * canvas.width / box.width,
          (event.clientY - box.top) * canvas.height / box.height];
}
canvas.addEventListener("pointerdown", (event) => { last = point(event); });
canvas.addEventListener("pointermove", (event) => {
  if (!last) return;
  const now = point(event);
  pen.beginPath();
  pen.moveTo(last[0], last[1]);
  pen.lineTo(now[0], now[1]);
  pen.stroke();
  last = now;
});
for (const end of ["pointerup", "pointerleave", "pointercancel"]) {
  canvas.addEventListener(end, () => { last = null; });
}
document.getElementById("clear").addEventListener("click", () => {
  pen.clearRect(0, 0, canvas.width, canvas.height);
});
function hex(v) { return v.toString(16).padStart(2, "0"); }
document.getElementById("submit").addEventListener("click", () => {
  const data = pen.getImageData(0, 0, canvas.width, canvas.height).data;
  const used = new Set();
  for (let i = 0; i < data.length; i += 4) used.add("#" + hex(data[i]) + hex(data[i + 1]) + hex(data[i + 2]));
  document.getElementById("result").textContent = wanted.every((c) => used.has(c)) ? "Success!" : "";
});
</script>
"""

_DRAW_STYLE = """
body { text-align: center; font-size: 14px; }
canvas { border: 1px solid black; touch-action: none; }
.swatch { display: inline-block; width: 50px; height: 50px; margin: 5px; }
#palette { display: flex; flex-wrap: wrap; justify-content: center; max-width: 300px; margin: 0 auto; }
.paint { width: 30px; height: 30px; margin: 3px; border: none; }
button { margin: 5px; padding: 5px 10px; font-size: 14px; }
"""

_PAGES = {
    "maze": (_MAZE_STYLE, _MAZE_BODY, False),
    "multiply": (_MULTIPLY_STYLE, _MULTIPLY_BODY, False),
    "draw": (_DRAW_STYLE, _DRAW_BODY, True),
}


def page_html(kind: str, seed: int) -> str:
    """The page file a browser task writes: a working page for a real Chrome, and the meta
    tags the simulated Chrome reads."""
    if kind not in _PAGES:
        raise ValueError(f"Unknown task page {kind!r}; known: {', '.join(PAGE_KINDS)}.")
    style, body, fits_screen = _PAGES[kind]
    palette = "[" + ", ".join(f'"{c}"' for c in AVAILABLE_COLORS) + "]"
    filled = body % {
        "rng": _RNG_JS,
        "seed": int(seed),
        "size": MAZE_SIZE,
        "clicks": MULTIPLY_CLICKS,
        "canvas": CANVAS_SIZE,
        "palette": palette,
        "count": TASK_COLOR_COUNT,
    }
    viewport = (
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        if fits_screen
        else ""
    )
    return (
        '<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n'
        f'<meta name="celil-page" content="{kind}">\n'
        f'<meta name="celil-seed" content="{int(seed)}">\n'
        f"{viewport}<title>{html.escape(PAGE_TITLES[kind])}</title>\n"
        f"<style>{style}</style>\n</head>\n<body>{filled}</body>\n</html>\n"
    )
