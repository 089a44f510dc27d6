"""Reading the planner's answers: plans in the shapes models write, sub-goals that say what to do,
progress verdicts and final answers.

Pure functions over untrusted text: none raises, and each is linear in the answer's length (lines
are whitespace-collapsed before any pattern runs, and no pattern nests quantifiers over them).
The table of shapes, with where each was seen, is in tests/agent/test_answer_parsers.py,
tests/agent/test_answer_shapes.py and tests/fixtures/answer_shapes/.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from android_world.agents.custom import celil_json

# --------------------------------------------------------------------------------------------
# Where a plan's steps are

# Keys real planners put their steps under, most specific first. A list under any other key is
# tried after these, unless the key names something that is never a step (`_NOT_STEP_KEYS`); a
# string under a plan key (a summary, or a numbered list in one string) comes last.
_PLAN_KEYS = (
    "sub_goals",
    "subgoals",
    "sub-goals",
    "plan",
    "steps",
    "milestones",
    "tasks",
    "todo",
    "todos",
    "todo_list",
    "subtasks",
    "actions",
    "next_steps",
    "plan_steps",
    "checklist",
)
_NOT_STEP_KEYS = frozenset(
    {
        *("rationale", "reasoning", "reason", "thought", "thoughts", "summary", "explanation"),
        *("title", "goal", "description", "userdescription", "type", "status", "id", "name"),
        *("assumptions", "risks", "notes", "tags", "resources", "files", "allowed_files"),
        *("artifacts", "artifacts_expected", "required", "dependencies", "depends_on"),
        *("questions", "warnings", "errors", "constraints", "criteria", "apps", "app_names"),
        *("references", "sources", "examples", "properties", "items_schema", "evidence"),
    }
)
# The keys of a sub-goal object that hold its words. `id`, `index` and `number` are never a
# sub-goal's text (`{"id": "1", ...}` gave "1").
_ITEM_TEXT_KEYS = (
    "description",
    "sub_goal",
    "subgoal",
    "goal",
    "milestone",
    "task",
    "step",
    "title",
    "text",
    "name",
    "action",
)
_NOT_TEXT_KEYS = frozenset(
    {"id", "index", "number", "step_number", "step_id", "order", "priority", "status"}
)
_RATIONALE_KEYS = ("rationale", "reasoning", "reason", "thought", "summary")

# One list line, matched on a stripped, whitespace-collapsed line (so `\ ?` is all the blank
# space a pattern ever has to try): "1. x", "2) x", "Step 3: x", "**Step 3:** x",
# "### Sub-goal 2 - x", "- x", "* x", "• x", "a) x". Bullets need a space after them, so a
# line in **bold** is not a bullet.
_LIST_ITEM = re.compile(
    r"""(?P<heading>\#{1,6}\ ?)?(?:\*\*|__)?\ ?
    (?:(?:(?:step|sub[-\ ]?goal|milestone|task)\ ?\d{1,2}|\d{1,2})\ ?(?:\*\*|__)?\ ?[.):\-\u2013](?=[\ *_]|$)
       |[a-h]\)|[-*+\u2022]\ )
    \ ?(?:\*\*|__)?\ ?(?P<text>\S.*)""",
    re.IGNORECASE | re.VERBOSE,
)
# A list line whose marker follows an opening quote (and maybe a key): the first line of a plan
# written as one JSON string, `{"sub_goals": "1. Open Contacts`.
_QUOTED_START = re.compile(
    r"""^[\[{(\ ]*(?:"[^"]{1,40}"\ ?:\ ?)?"(?=\ ?(?:\d{1,2}[.)]|step\ ?\d|[-*\u2022]\ ))""",
    re.IGNORECASE,
)
# The closing quote of such a string, with the punctuation after it: `Save the contact",`.
_QUOTED_END = re.compile(r'"\ ?[,\]})]*$')
_INLINE_NUMBER = re.compile(r"(?:^|\s)(\d{1,2})[.)]\s+")
_MARKUP = re.compile(r"\*\*|__|`+|^#+\s*")
# A line that cannot continue a list item: code fences, markup, JSON punctuation, end tags.
_STRUCTURAL = re.compile(r"^(?:```|[#{}\[\]<|>])")
_ENDS_SENTENCE = (".", "!", "?", ":", ";")
# Lines that close a plan rather than being a step of it.
_SIGN_OFFS = frozenset({"done", "end", "end of plan", "the end", "finished", "end_of_plan"})


def _squash(text: str) -> str:
    return " ".join(str(text).split())


def clean_item(text: str) -> str:
    """One sub-goal's words without markdown, list markers or a trailing colon."""
    value = _squash(text)
    match = _LIST_ITEM.match(value)
    if match:
        value = match.group("text")
    value = _MARKUP.sub("", value).strip()
    return value.rstrip(":").strip()


def _unquote_end(text: str) -> str:
    """`Save the contact",` -> `Save the contact` when the quote closes one the line opened."""
    if text.count('"') % 2 == 1:
        return _QUOTED_END.sub("", text).strip()
    return text


def _list_lines(text: str) -> list[tuple[int, str]]:
    """(indent, text) of each list item, with the lines that continue an item joined to it.

    A line continues the item above it when it is not blank, not a list line and not markup,
    and either is indented past the item's marker or follows a line that ends mid-sentence
    (a wrapped line, as markdown reads it). A heading's paragraph explains the heading and is
    not joined.
    """
    found: list[list[Any]] = []  # [indent, text, can_continue]
    open_item: list[Any] | None = None
    for raw in (text or "").splitlines():
        line = _squash(raw)
        if not line:
            open_item = None
            continue
        indent = len(raw.expandtabs(4)) - len(raw.expandtabs(4).lstrip())
        unquoted = _QUOTED_START.sub("", line)
        match = _LIST_ITEM.match(unquoted)
        if match:
            item = _unquote_end(match.group("text"))
            open_item = [indent, item, match.group("heading") is None]
            found.append(open_item)
            continue
        continues = (
            open_item is not None
            and open_item[2]
            and not _STRUCTURAL.match(line)
            and (indent > open_item[0] or not str(open_item[1]).endswith(_ENDS_SENTENCE))
        )
        if continues and open_item is not None:
            open_item[1] = _unquote_end(f"{open_item[1]} {line}")
        else:
            open_item = None
    return [(indent, item) for indent, item, _ in found]


def list_items(text: str) -> list[str]:
    """The items of a (possibly nested) markdown list in prose; only list lines count, with the
    lines that wrap them.

    A nested list keeps its outer level: plans are coarse milestones and the inner lines are
    taps. When the outer level has a single item, the inner items are the plan too (without
    the outer one when it is a heading ending in a colon).
    """
    found = _list_lines(text)
    if not found:
        return []
    top = min(indent for indent, _ in found)
    outer = [item for indent, item in found if indent == top]
    if len(outer) >= 2:
        chosen = outer
    elif outer[0].rstrip("*_ ").endswith(":"):  # a heading over the real steps
        chosen = [item for indent, item in found if indent > top] or outer
    else:
        chosen = [item for _, item in found]
    items = [c for c in (clean_item(item) for item in chosen) if c]
    return [item for item in items if item.casefold().strip(" .!<>") not in _SIGN_OFFS]


def _split_inline(text: str) -> list[str]:
    """ "1. Open X 2. Tap Y" -> two items, only when the numbers count up from 1."""
    marks = list(_INLINE_NUMBER.finditer(text))
    if len(marks) < 2 or [int(m.group(1)) for m in marks] != list(range(1, len(marks) + 1)):
        return []
    if text[: marks[0].start()].strip():
        return []
    bounds = [m.end() for m in marks]
    ends = [m.start() for m in marks[1:]] + [len(text)]
    return [clean_item(text[b:e]) for b, e in zip(bounds, ends) if text[b:e].strip()]


def string_items(text: str) -> list[str]:
    """Sub-goals from one JSON string: a sentence, or a whole numbered list in one string."""
    listed = list_items(text)
    if len(listed) >= 2:
        return listed
    lines = [line for line in (text or "").splitlines() if line.strip()]
    if len(lines) >= 2:
        return [c for c in (clean_item(line) for line in lines) if c]
    inline = _split_inline(_squash(text or ""))
    if inline:
        return inline
    item = clean_item(text or "")
    return [item] if item else []


def _object_text(value: dict[str, Any]) -> list[str]:
    """A sub-goal object's words: its description-like field, never its id."""
    for key in _ITEM_TEXT_KEYS:
        if isinstance(value.get(key), str) and value[key].strip():
            return [clean_item(value[key])]
    for key, text in value.items():
        if isinstance(text, str) and text.strip() and str(key).lower() not in _NOT_TEXT_KEYS:
            return [clean_item(text)]
    return []


_NUMBERED_KEY = re.compile(r"^\s*(?:step|sub[-_ ]?goal|milestone)?[\s_-]*(\d{1,2})\s*$", re.I)


def _numbered_values(value: dict[str, Any]) -> list[Any] | None:
    """The values of `{"1": "Open X", "2": "Tap Y"}` (or "step_1" keys) in number order."""
    marks = [_NUMBERED_KEY.match(str(key)) for key in value]
    if not value or not all(marks):
        return None
    numbers = [int(mark.group(1)) for mark in marks if mark]
    return [item for _, item in sorted(zip(numbers, value.values()), key=lambda pair: pair[0])]


def plan_items(value: Any, *, in_list: bool = False) -> list[str]:
    """The first candidate list of sub-goal texts in a JSON plan value (see `plan_candidates`)."""
    candidates = plan_candidates(value, in_list=in_list)
    return candidates[0] if candidates else []


def plan_candidates(value: Any, *, in_list: bool = False) -> list[list[str]]:
    """Every reading of a JSON plan value as sub-goal texts, most likely first.

    A list of strings or objects, nested lists, an object holding the list, or one string
    holding a numbered list. In an object, a list of steps under any key beats a string under a
    plan key, so `{"plan": "<summary>", "todo": [...]}` is its todo list; the summary is read
    only when nothing else is there.
    """
    if isinstance(value, str):
        items = string_items(value)
        return [items] if items else []
    if isinstance(value, list):
        items = [i for element in value for i in plan_items(element, in_list=True)]
        return [items] if items else []
    if not isinstance(value, dict):
        return []
    if (ordered := _numbered_values(value)) is not None:
        return plan_candidates(ordered)
    keys = {str(key).lower(): key for key in value}
    known = [keys[k] for k in _PLAN_KEYS if k in keys]
    others = [
        key
        for lowered, key in keys.items()
        if lowered not in _PLAN_KEYS and lowered not in _NOT_STEP_KEYS
    ]
    candidates: list[list[str]] = []
    for key in [*known, *others]:
        if isinstance(value[key], (list, dict)):
            candidates += plan_candidates(value[key])
    for key in known:
        if isinstance(value[key], str):
            candidates += plan_candidates(value[key])
    if not candidates and in_list:
        # A lone object is a plan only if it holds the list; inside a list it is one sub-goal.
        return [items] if (items := _object_text(value)) else []
    return candidates


def rationale_of(value: Any) -> str:
    if isinstance(value, dict):
        for key in _RATIONALE_KEYS:
            if value.get(key) and isinstance(value[key], str):
                return value[key]
    return ""


# --------------------------------------------------------------------------------------------
# Sub-goals that say what to do

# Words that make a sub-goal an action or a checkable state, by their base form (see `_stems`).
# A sub-goal with none of them ("34", "notes.md", "Contacts app", "and") says nothing the
# executor could do or the screen could show.
ACTION_WORDS: frozenset[str] = frozenset(
    {
        # getting somewhere
        *(
            "open",
            "launch",
            "start",
            "run",
            "go",
            "navigate",
            "return",
            "back",
            "visit",
            "enter",
            "exit",
        ),
        *("close", "leave", "switch", "reach", "access", "scroll", "swipe", "browse", "zoom"),
        # touching and typing
        *("tap", "click", "press", "touch", "hold", "select", "choose", "pick", "drag", "drop"),
        *("type", "input", "fill", "write", "edit", "change", "update", "modify", "set"),
        *("adjust", "turn", "toggle", "enable", "disable", "activate", "deactivate", "check"),
        *("uncheck", "tick", "mark", "flip", "increase", "decrease", "raise", "lower", "mute"),
        *("unmute", "expand", "collapse", "show", "hide", "dismiss", "accept", "allow", "deny"),
        *("grant", "confirm", "apply", "submit", "use", "do", "make", "put", "keep", "give"),
        # making, keeping and removing things
        *("create", "add", "save", "delete", "remove", "erase", "clear", "empty", "discard"),
        *("send", "reply", "forward", "share", "copy", "paste", "move", "rename", "duplicate"),
        *("attach", "insert", "record", "take", "capture", "stop", "pause", "resume", "reset"),
        *("restart", "play", "call", "dial", "message", "email", "text", "finish", "complete"),
        *("install", "uninstall", "download", "upload", "sort", "filter", "schedule", "book"),
        *("buy", "order", "pay", "purchase", "star", "pin", "archive", "favorite", "bookmark"),
        *("connect", "disconnect", "pair", "sync", "log", "sign", "export", "import", "print"),
        *("transfer", "join", "invite", "assign", "configure", "name", "label", "tag", "restore"),
        *("undo", "redo", "refresh", "reload", "rotate", "crop", "highlight", "answer", "wait"),
        *("convert", "draw", "plan", "get", "view", "display", "approve"),
        # finding things out
        *("find", "search", "locate", "look", "read", "identify", "determine", "count", "sum"),
        *("calculate", "compare", "verify", "ensure", "review", "inspect", "report"),
        *("tell", "list", "obtain", "extract", "retrieve", "fetch", "note", "remember", "see"),
        # states a screen shows, and participles the stems above do not reach
        *("visible", "shown", "active", "enabled", "disabled"),
        *("taken", "made", "sent", "written", "kept", "found", "chosen", "given", "gone", "left"),
        *("need", "want", "like"),
    }
)
# A longer sub-goal that opens with one of these is a fragment of a sentence, not an order.
_FRAGMENT_OPENERS = frozenset(
    {
        *("the", "a", "an", "and", "or", "but", "of", "to", "in", "on", "with", "for", "at"),
        *("by", "from", "as", "my", "your", "his", "her", "its", "our", "their", "this", "that"),
        *("these", "those", "then", "than", "so", "if"),
    }
)
# A switch's position names a state ("Wi-Fi on"), but not as the first word ("on the screen").
_POSITION_WORDS = frozenset({"on", "off"})
_QUESTION_WORDS = frozenset(
    {"what", "which", "how", "who", "whom", "whose", "when", "where", "why", "is", "are"}
)
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_FILE_NAME = re.compile(r"^[\w\-.()\[\] ]{1,80}\.[A-Za-z][A-Za-z0-9]{0,4}$")


def _stems(word: str) -> set[str]:
    """The base forms a word may be: saved -> save, stopped -> stop, setting -> set."""
    stems = {word}
    for suffix in ("ing", "ed", "es", "s", "d"):
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            base = word[: -len(suffix)]
            stems.update({base, base + "e"})
            if len(base) > 2 and base[-1] == base[-2]:
                stems.add(base[:-1])
    return stems


def sub_goal_problem(text: str) -> str | None:
    """Why a sub-goal cannot be worked on (no words, a file name, no action), or None."""
    value = _squash(text)
    words = [w.casefold() for w in _WORD.findall(value)]
    if not words:
        return f"sub-goal {value[:40]!r} has no words"
    if " " not in value and _FILE_NAME.match(value):
        return f"sub-goal {value[:40]!r} is a file name, not a step"
    if "?" in value or words[0] in _QUESTION_WORDS:
        return None
    if any(_stems(word) & ACTION_WORDS for word in words):
        return None
    if _POSITION_WORDS & set(words[1:]):
        return None
    # Three words or more that open like an order ("Shoot a photo") are read as one: a verb
    # list can never be complete, and refusing a good model's plan costs more than a vague step.
    first = value.split()[0].casefold()
    if len(words) >= 3 and first.isalpha() and first not in _FRAGMENT_OPENERS:
        return None
    return f"sub-goal {value[:40]!r} names no action"


def plan_problem(sub_goals: Iterable[str]) -> str | None:
    """Why a plan cannot be used, or None: one sub-goal that cannot be worked on spoils it (a
    planner that writes `["34", "36"]` or fragments has not planned the task)."""
    items = list(sub_goals)
    if not items:
        return "the plan has no sub-goals"
    for item in items:
        problem = sub_goal_problem(item)
        if problem:
            return problem
    return None


class PlanAnswer(BaseModel):
    """The planner's JSON answer."""

    model_config = ConfigDict(extra="ignore")

    sub_goals: list[str] = Field(min_length=1)
    rationale: str = ""

    @field_validator("sub_goals", mode="before")
    @classmethod
    def _clean(cls, value: Any) -> Any:
        return plan_items(value) if isinstance(value, (str, list)) else value

    @field_validator("rationale", mode="before")
    @classmethod
    def _rationale(cls, value: Any) -> str:
        return "" if value is None else str(value)


def parse_plan_text(
    text: str, examples: frozenset[str] = frozenset()
) -> tuple[PlanAnswer | None, str]:
    """A validated plan from model text, or None and why.

    The last JSON value that holds usable sub-goals wins (a think block's draft never does);
    without one, the list lines of the prose ("1.", "Step 1:", bullets, with their wrapped
    lines) are the plan. Sub-goals that repeat the prompt's own examples (`examples`, see
    celil_json.example_strings) are dropped, and a plan left with a sub-goal that names no
    action, or none at all, is not a plan.
    """
    answer, _ = celil_json.bounded(celil_json.strip_think(text))
    values = celil_json.json_values(answer)
    reason = "no JSON object in the answer" if not values else "the JSON held no sub-goals"
    candidates = [
        (items, rationale_of(value))
        for value in reversed(values)
        for items in plan_candidates(value)
    ]
    candidates.append((list_items(answer), "(parsed from a list)"))
    first_problem = ""
    for items, rationale in candidates:
        if not items:
            continue
        real = [item for item in items if not celil_json.is_placeholder(item, examples)]
        if not real:
            problem = "the sub-goals repeat the prompt's example (" + "; ".join(items[:2]) + ")"
        else:
            problem = plan_problem(real) or ""
        if not problem:
            return PlanAnswer(sub_goals=real, rationale=rationale), ""
        first_problem = first_problem or problem
    return None, first_problem or reason


# --------------------------------------------------------------------------------------------
# Progress verdicts

# Keys small models use for the progress verdict instead of "done", and the words of a verdict.
_DONE_KEYS = ("done", "completed", "complete", "is_done", "achieved", "finished")
_TRUE_WORDS = frozenset({"true", "yes", "1", "done", "complete", "completed", "y"})
_FALSE_WORDS = frozenset({"false", "no", "0", "not done", "incomplete", "n", "not yet", "nope"})
_VERDICT_LINE = re.compile(
    r"^\W{0,20}(?:(?:done|completed|answer|verdict)\W{0,5}[:=]\W{0,5})?"
    r"(yes|no|nope|true|false|not yet)\b",
    re.IGNORECASE,
)


class DoneAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")

    done: bool
    evidence: str = ""


def _verdict_word(value: str) -> bool | None:
    word = " ".join(re.sub(r"[^\w\s]", " ", value[:100]).lower().split())
    if word in _TRUE_WORDS:
        return True
    if word in _FALSE_WORDS:
        return False
    return None


def parse_bool_answer(text: str, key: str = "done") -> bool | None:
    """A yes/no verdict: the JSON `key` (or a synonym of "done"), else a leading yes/no.

    None when there is no verdict, including the prompt's own "true or false" copied back.
    """
    answer, _ = celil_json.bounded(text)
    data = celil_json.extract_json(answer)
    keys = _DONE_KEYS if key == "done" else (key,)
    found = next((k for k in keys if data is not None and k in data), None)
    if data is not None and found is not None:
        value = data[found]
        if isinstance(value, str):
            return _verdict_word(value)
        try:
            return DoneAnswer.model_validate({"done": value}).done
        except ValidationError:
            return None
    stripped = celil_json.strip_think(answer).replace("*", "").strip()
    match = _VERDICT_LINE.match(stripped)
    return None if match is None else _verdict_word(match.group(1))


# --------------------------------------------------------------------------------------------
# Final answers

# Texts that fill the answer slot without answering: JSON nulls, "N/A", bare punctuation.
_NON_ANSWERS = frozenset(
    {"null", "none", "nil", "undefined", "n a", "na", "unknown", "answer", "your answer", "..."}
)
_MAX_PROSE_ANSWER = 300


def clean_answer(text: str) -> str:
    """Strip wrappers models put around an answer ("Answer: ...", quotes, a trailing period)."""
    answer = _squash(text or "")
    answer = re.sub(r"^(final\s+)?answer\s*[:\-]\s*", "", answer, flags=re.IGNORECASE)
    if len(answer) >= 2 and answer[0] == answer[-1] and answer[0] in "\"'`":
        answer = answer[1:-1].strip()
    if answer.endswith(".") and not answer.endswith(".."):
        answer = answer[:-1].rstrip()
    return answer


def non_answer(text: str, examples: frozenset[str] = frozenset()) -> str | None:
    """Why `text` is no answer (empty, a null word, punctuation, the prompt's own slot), or None."""
    folded = unicodedata.normalize("NFKC", text or "").casefold().strip()
    if not folded:
        return "the answer is empty"
    if not any(ch.isalnum() for ch in folded):
        return f"the answer {text[:40]!r} holds no words or numbers"
    if celil_json.normalise(folded) in _NON_ANSWERS:
        return f"the answer {text[:40]!r} is a placeholder"
    if celil_json.is_placeholder(text, examples):
        return f"the answer {text[:40]!r} repeats the prompt's example"
    return None


def _answer_value(value: Any) -> str | None:
    """An answer field as text; None for values that cannot be an answer (null, objects)."""
    if value is None or isinstance(value, dict):
        return None
    if isinstance(value, list):
        parts = [_answer_value(v) for v in value]
        return (
            None
            if not parts or any(p is None for p in parts)
            else ", ".join(p or "" for p in parts)
        )
    return str(value)


def parse_final_answer(text: str, examples: frozenset[str] = frozenset()) -> tuple[str, str]:
    """(answer, problem): the `answer` of the final JSON object, or a short prose answer.

    A JSON value without an `answer` (a bare list such as `[1, 2, 3]`, `null`, the answer
    schema echoed back) is no answer, nor is an answer that is a null word or the prompt's own
    example; then the answer is "" and `problem` says why.
    """
    answer, _ = celil_json.bounded(celil_json.strip_think(text))
    data = celil_json.extract_json(answer)
    if data is not None:
        if "answer" not in data:
            return "", "the JSON holds no answer"
        value = _answer_value(data["answer"])
        if value is None:
            return "", f"the answer is {type(data['answer']).__name__}, not text"
        cleaned = clean_answer(value)
        problem = non_answer(cleaned, examples)
        return ("", problem) if problem else (cleaned, "")
    if celil_json.json_values(answer):
        return "", "a JSON value without an answer"
    stripped = answer.strip()
    if not stripped:
        return "", "the answer is empty"
    if len(stripped) >= _MAX_PROSE_ANSWER:
        return "", "a long text, not an answer in the asked format"
    cleaned = clean_answer(stripped)
    problem = non_answer(cleaned, examples)
    return ("", problem) if problem else (cleaned, "")


__all__ = [
    "ACTION_WORDS",
    "DoneAnswer",
    "PlanAnswer",
    "clean_answer",
    "clean_item",
    "list_items",
    "non_answer",
    "parse_bool_answer",
    "parse_final_answer",
    "parse_plan_text",
    "plan_candidates",
    "plan_items",
    "plan_problem",
    "rationale_of",
    "string_items",
    "sub_goal_problem",
]
