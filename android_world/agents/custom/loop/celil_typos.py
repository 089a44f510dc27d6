"""A typed text that is a near-copy of the goal's own words is refused before it runs (DESIGN §3
step 5).

A model's executor sometimes types a value with a slip ("2 servinsg", "Snacks will be
provide.d"). The personas may pass it, the record is saved with the slip, and then the goal
check rightly reads the asked value as never entered: the task is neither done as asked nor
claimable (an app's lenient comparison may count the record, and the agent can never show it).
The slip is plain to see before the text is typed, model-free, in the goal's words alone:

- the text, compared letters and digits only and ignoring case, is not in the goal;
- the goal holds a stretch within two edits of it (a swap of two neighbouring characters
  counts as one edit), so the text copies the goal's words with a slip;
- the text has at least five letters or digits, two of them letters: a short entry or a
  number in another format ("7:30" for "730", "67.41" for "$67.41") is left to the votes.

The search is bounded so that a hostile goal or answer costs little: a text longer than
`MAX_TEXT` characters (a paragraph, not a value) and a goal whose pieces of the text occur at so
many places that the comparisons would pass `MAX_WORK` characters (a goal that repeats itself)
are left to the votes.

Such a proposal is refused like an irreversible act whose target the goal does not name: no
verifier is asked, and the executor is told the goal's words to type instead. A text the goal
does not give at all (a search for a title read off the screen) is never refused by this.
"""

from __future__ import annotations

import re

from android_world.agents.custom.celil_protocols import ProposedAction
from android_world.env import json_action

MAX_EDITS = 2  # texts of LONG_CHARS or more; one edit for shorter ones
LONG_CHARS = 8
MIN_CHARS = 4
MIN_LETTERS = 2
MAX_TEXT = 120
MAX_WORK = 4000  # places the text is compared at x its length


def _folded(text: str) -> tuple[str, list[int]]:
    """Case folded, each run of spaces one space, with each kept character's index in `text`."""
    kept: list[str] = []
    where: list[int] = []
    for i, char in enumerate(text):
        if char.isspace():
            if not kept or kept[-1] == " ":
                continue
            char = " "
        kept.append(char.casefold())
        where.append(i)
    while kept and kept[-1] == " ":
        kept.pop()
        where.pop()
    return "".join(kept), where


def _bounded(words: str, start: int, end: int) -> bool:
    """The stretch starts and ends at word edges (whole words of the goal, not parts)."""
    before = start == 0 or not words[start - 1].isalnum()
    after = end == len(words) or not words[end].isalnum()
    return before and after


def _edits(a: str, b: str, bound: int) -> int:
    """Edits between a and b (insert, delete, substitute, swap of neighbours), or bound + 1
    once it exceeds bound. Only cells within `bound` of the diagonal are worked out."""
    if abs(len(a) - len(b)) > bound:
        return bound + 1
    over = bound + 1
    previous2 = [over] * (len(b) + 1)
    previous = [j if j <= bound else over for j in range(len(b) + 1)]
    for i in range(1, len(a) + 1):
        current = [over] * (len(b) + 1)
        if i <= bound:
            current[0] = i
        for j in range(max(1, i - bound), min(len(b), i + bound) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                value = min(value, previous2[j - 2] + 1)
            current[j] = min(value, over)
        if min(current) > bound:
            return over
        previous2, previous = previous, current
    return min(previous[-1], over)


def near_copy(goal: str, typed: str) -> str | None:
    """The stretch of the goal that `typed` copies with a slip (see the module doc), else None."""
    text, _ = _folded(typed or "")
    solid = [c for c in text if c != " "]
    if (
        len(text) > MAX_TEXT
        or len(solid) < MIN_CHARS
        or sum(c.isalpha() for c in solid) < MIN_LETTERS
    ):
        return None
    words, where = _folded(goal or "")
    if not words or text in words:
        return None
    bound = MAX_EDITS if len(solid) >= LONG_CHARS else 1
    # Within `bound` edits, one of bound + 1 pieces of the text is in the goal unchanged:
    # each place a piece occurs anchors the stretches to compare.
    size = max(1, len(text) // (bound + 1))
    pieces = [
        (k * size, text[k * size : (k + 1) * size if k < bound else None]) for k in range(bound + 1)
    ]
    anchors = {
        found.start() - offset
        for offset, piece in pieces
        if piece
        for found in re.finditer(re.escape(piece), words)
    }
    if len(anchors) * len(text) > MAX_WORK:
        return None
    best: tuple[int, int, int, int] | None = None
    for anchor in sorted(anchors):
        for start in range(max(0, anchor - bound), anchor + bound + 1):
            for length in range(len(text) - bound, len(text) + bound + 1):
                end = start + length
                if length <= 0 or end > len(words) or not _bounded(words, start, end):
                    continue
                edits = _edits(text, words[start:end], bound)
                key = (edits, abs(length - len(text)), start, end)
                if edits <= bound and (best is None or key < best):
                    best = key
    if best is None or best[0] == 0:
        return None
    _, _, start, end = best
    return goal[where[start] : where[end - 1] + 1]


def typo_refusal(goal: str, proposal: ProposedAction) -> str | None:
    """Why a proposal that types a near-copy of the goal's words may not run, else None."""
    action = proposal.action
    if action is None or action.action_type != json_action.INPUT_TEXT or not action.text:
        return None
    meant = near_copy(goal, action.text)
    if meant is None:
        return None
    return (
        f"it types {action.text!r}, which the goal spells {meant!r}: type the goal's words exactly"
    )
