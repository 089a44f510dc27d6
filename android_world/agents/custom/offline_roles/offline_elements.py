"""Reading one screen's elements for the offline roles: which are system chrome, switches, sliders,
fields, dialogs' buttons, permission and pop-up buttons, list containers; finding an element by
its words. Pure functions of an Observation; re-exported by offline_screen."""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Callable, Sequence

from android_world.agents.custom.celil_geometry import element_box, element_label
from android_world.agents.custom.celil_protocols import Observation
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.env import representation_utils

Element = representation_utils.UIElement

SYSTEM_UI_PREFIX = "com.android.systemui"
LAUNCHER_HINTS = ("launcher", "nexuslauncher", "home")
GRANT_LABELS = ("allow", "while using the app", "only this time", "allow all", "grant", "ok")
SEARCH_WORDS = ("search",)
STATUS_BAR_FRACTION = 0.045
TITLE_BAR_FRACTION = 0.12


def is_system(element: Element) -> bool:
    return (element.resource_name or "").startswith(SYSTEM_UI_PREFIX)


def is_visible(element: Element, screen_size: tuple[int, int] | None = None) -> bool:
    if element.is_visible is False:
        return False
    box = element_box(element, screen_size)
    return box is None or (box.width > 2 and box.height > 2)


def labels(element: Element) -> list[str]:
    """Every human-readable name of an element, most specific first."""
    out = []
    for value in (element.text, element.content_description, element.hint_text, element.tooltip):
        if value and value.strip() and value.strip() not in out:
            out.append(value.strip())
    if not out and element.resource_name:
        out.append(element.resource_name.rsplit("/", 1)[-1].replace("_", " "))
    return out


def class_of(element: Element) -> str:
    return (element.class_name or "").rsplit(".", 1)[-1]


def is_switch(element: Element) -> bool:
    name = class_of(element)
    return bool(element.is_checkable) or name in ("Switch", "SwitchCompat", "ToggleButton")


def is_slider(element: Element) -> bool:
    name = class_of(element).casefold()
    return "seekbar" in name or "slider" in name


def is_field(element: Element) -> bool:
    return bool(element.is_editable) or class_of(element) in ("EditText", "AutoCompleteTextView")


def in_status_bar(element: Element, screen_size: tuple[int, int] | None) -> bool:
    """Status-bar icons (clock, signal, battery) are not always tagged as system UI."""
    box = element_box(element, screen_size)
    height = screen_size[1] if screen_size else 0
    return bool(box is not None and height and box.y_max <= STATUS_BAR_FRACTION * height)


def in_title_bar(element: Element, screen_size: tuple[int, int] | None) -> bool:
    """A page title: plain text high on the screen, which names the page rather than leads on."""
    box = element_box(element, screen_size)
    height = screen_size[1] if screen_size else 0
    return bool(
        box is not None
        and height
        and box.y_max <= TITLE_BAR_FRACTION * height
        and not element.is_clickable
        and not is_field(element)
    )


def keyboard_top(observation: Observation) -> float | None:
    """Top edge of an on-screen keyboard (many one-letter keys low on the screen), or None."""
    size = observation.screen_size
    keys = []
    for element in observation.ui_elements:
        label = (element.text or "").strip()
        box = element_box(element, size)
        if len(label) == 1 and label.isalpha() and element.is_clickable and box is not None:
            keys.append(box)
    if len(keys) < 15:
        return None
    return min(b.y_min for b in keys) - 10


def content_indices(observation: Observation) -> list[int]:
    """Elements a user would consider part of the app (status bar, navigation bar and on-screen
    keyboard left out)."""
    size = observation.screen_size
    keyboard = keyboard_top(observation)
    out = []
    for i, e in enumerate(observation.ui_elements):
        if is_system(e) or not is_visible(e, size) or in_status_bar(e, size):
            continue
        if keyboard is not None:
            box = element_box(e, size)
            if box is not None and box.y_min >= keyboard:
                continue
        out.append(i)
    return out


# An app's empty-list message: "No expenses yet", "No upcoming events", "Nothing here", "Empty".
_EMPTY_LIST = re.compile(
    r"^(?:(?:no|nothing)(?:\s+[^\W\d]+){1,4}|empty|(?:\w+\s+){1,3}is empty)[.!]?$"
)


def shows_empty_list(observation: Observation) -> bool:
    """The screen says its list has nothing in it (a list that a delete just emptied shows
    this message instead of a scrollable list). Buttons ("No thanks") are not messages."""
    elements = observation.ui_elements
    return any(
        not elements[i].is_clickable
        and _EMPTY_LIST.match(" ".join((elements[i].text or "").casefold().split()))
        for i in content_indices(observation)
    )


def find_text(
    observation: Observation, wanted: str, exact: bool = False, skip_titles: bool = False
) -> int | None:
    """The element showing `wanted` (whole-phrase match, or equal when `exact`); `skip_titles`
    ignores a page title, which names the open item but cannot be tapped."""
    key = text_lib.normalize(wanted)
    if not key:
        return None
    best = None
    for i in content_indices(observation):
        if skip_titles and in_title_bar(observation.ui_elements[i], observation.screen_size):
            continue
        for name in labels(observation.ui_elements[i]):
            norm = text_lib.normalize(name)
            if norm == key:
                return i
            if not exact and best is None and text_lib.phrase_in(wanted, name):
                best = i
    return best


YES_LABELS = ("ok", "yes", "delete", "confirm", "continue", "remove")


def confirm_button(observation: Observation, topic: str) -> int | None:
    """The accepting button of a dialog whose text mentions `topic` ("delete this file?")."""
    indices = content_indices(observation)
    elements = observation.ui_elements
    asks = any(
        not elements[i].is_clickable
        and topic in text_lib.normalize(element_label(elements[i]))
        and "?" in (elements[i].text or "")
        for i in indices
    )
    if not asks:
        return None
    for label in YES_LABELS:
        for i in indices:
            if elements[i].is_clickable and text_lib.normalize(element_label(elements[i])) == label:
                return i
    return None


ACCEPT_LABELS = ("ok", "done", "yes", "confirm")


def dialog_accept(observation: Observation, verb: str) -> int | None:
    """The accepting button of a dialog titled with `verb` ("Move to", with Cancel and OK)
    when no button says the verb itself: there the dialog's OK is the "Move". A verb that is
    the whole title ("Move to") names the dialog, not its OK."""
    want = text_lib.normalize(verb)
    if not want or " " in want:
        return None
    indices = content_indices(observation)
    elements = observation.ui_elements
    names = {i: text_lib.normalize(element_label(elements[i])) for i in indices}
    titled = any(
        not elements[i].is_clickable and name.split()[:1] == [want] and name != want
        for i, name in names.items()
    )
    buttons = {name: i for i, name in names.items() if elements[i].is_clickable}
    if not titled or "cancel" not in buttons or any(want in n.split() for n in buttons):
        return None
    return next((buttons[label] for label in ACCEPT_LABELS if label in buttons), None)


def keypad_digits(observation: Observation) -> str | None:
    """Digits a keypad entry display shows ("01h 43m 53s" -> "14353"), when there is a keypad."""
    digits = {
        (e.text or "").strip()
        for i in content_indices(observation)
        for e in [observation.ui_elements[i]]
        if e.is_clickable
    }
    if not {str(d) for d in range(10)} <= digits:
        return None
    for i in content_indices(observation):
        label = observation.ui_elements[i].text or ""
        if re.fullmatch(r"\s*\d{1,2}\s*h\s*\d{1,2}\s*m\s*\d{1,2}\s*s\s*", label, re.I):
            return re.sub(r"\D", "", label).lstrip("0") or "0"
    return None


def digit_button(observation: Observation, digit: str) -> int | None:
    for i in content_indices(observation):
        element = observation.ui_elements[i]
        if element.is_clickable and (element.text or "").strip() == digit:
            return i
    return None


def is_launcher(observation: Observation) -> bool:
    activity = (observation.foreground_activity or "").casefold()
    return any(h in activity for h in LAUNCHER_HINTS)


def launcher_labels(observation: Observation) -> list[str]:
    if not is_launcher(observation):
        return []
    return [
        element_label(observation.ui_elements[i])
        for i in content_indices(observation)
        if observation.ui_elements[i].is_clickable and element_label(observation.ui_elements[i])
    ]


def row_label(observation: Observation, index: int) -> str:
    """Text beside an element on the same row (how a switch or field without a name is labelled)."""
    elements = observation.ui_elements
    target = element_box(elements[index], observation.screen_size)
    if target is None:
        return ""
    parts = []
    for i in content_indices(observation):
        if i == index:
            continue
        element = elements[i]
        box = element_box(element, observation.screen_size)
        if box is None or not element.text or is_field(element) or is_switch(element):
            continue
        same_row = target.y_min - 30 <= box.center[1] <= target.y_max + 30
        left_of = box.x_max <= target.x_min + 20
        if same_row and left_of:
            parts.append(element.text)
    return " ".join(parts)


def element_names(observation: Observation, index: int) -> list[str]:
    element = observation.ui_elements[index]
    names = labels(element)
    if is_switch(element) or is_slider(element) or is_field(element):
        beside = row_label(observation, index)
        if beside:
            names.append(beside)
    return names


def relevance(observation: Observation, index: int, terms: Sequence[tuple[str, float]]) -> float:
    return max(
        (text_lib.label_relevance(terms, name) for name in element_names(observation, index)),
        default=0.0,
    )


def screen_signature(observation: Observation) -> str:
    """Identity of a screen for the executor's memory: the activity and the visible labels.

    Typed text is left out so that filling a form does not make it a "new" screen.
    """
    parts = [observation.foreground_activity or ""]
    for i in content_indices(observation):
        element = observation.ui_elements[i]
        name = element.hint_text if is_field(element) else element_label(element)
        checked = "1" if element.is_checked else "0"
        parts.append(f"{class_of(element)}:{name}:{checked}")
    return hashlib.blake2b("|".join(parts).encode(), digest_size=10).hexdigest()


def grant_button(observation: Observation) -> int | None:
    """The button that accepts a permission request, when such a dialog is showing."""
    elements = observation.ui_elements
    asks = any(
        re.search(r"\b(allow|access|permission)\b", text_lib.normalize(element_label(elements[i])))
        and not elements[i].is_clickable
        for i in content_indices(observation)
    )
    if not asks:
        return None
    for label in GRANT_LABELS:
        for i in content_indices(observation):
            element = elements[i]
            if element.is_clickable and text_lib.normalize(element_label(element)) == label:
                return i
    return None


# Pop-ups an app shows on its own (onboarding, rating prompts, notification opt-ins), as apps
# commonly word them, and the buttons that decline them: a decline never changes app data.
_INTERRUPTION = re.compile(
    r"what s new( in .+)?|enjoying .+|rate (this|the|our) app|"
    r"allow .+ to send you notifications|turn on notifications"
)
DECLINE_LABELS = ("not now", "no thanks", "maybe later", "later", "got it", "skip", "dismiss")
_DECLINE_PERMISSION = ("don t allow", "deny")


def interruption_button(observation: Observation) -> int | None:
    """The button that closes a pop-up nobody asked for (What's new, Enjoying X?, a
    notification opt-in), when one shows: read through, it would pass for the app's content,
    e.g. "What's new in Simple Calendar Pro" taken as the answer to a question."""
    elements = observation.ui_elements
    indices = content_indices(observation)
    if not any(
        _INTERRUPTION.fullmatch(text_lib.normalize(element_label(elements[i])).rstrip(" ?"))
        and not elements[i].is_clickable
        for i in indices
    ):
        return None
    for label in (*DECLINE_LABELS, *_DECLINE_PERMISSION):
        for i in indices:
            element = elements[i]
            if element.is_clickable and text_lib.normalize(element_label(element)) == label:
                return i
    return None


def _best_match(
    observation: Observation, subject: str, kind: Callable[[Element], bool], minimum: float
) -> int | None:
    """The element of `kind` whose names best match `subject` (at least `minimum`)."""
    terms = [(subject, 1.0)]
    best, best_score = None, minimum
    for i in content_indices(observation):
        if not kind(observation.ui_elements[i]):
            continue
        score = relevance(observation, i, terms)
        if score >= best_score:
            best, best_score = i, score
    return best


def find_switch(observation: Observation, subject: str, minimum: float = 0.8) -> int | None:
    return _best_match(observation, subject, is_switch, minimum)


def find_slider(observation: Observation, subject: str, minimum: float = 0.8) -> int | None:
    return _best_match(observation, subject, is_slider, minimum)


def slider_at(element: Element, level: str) -> bool | None:
    """Whether a slider shows its end value; None when it does not say."""
    match = re.search(r"(\d+(?:\.\d+)?)\s*%", element.text or "")
    if not match:
        return None
    value = float(match.group(1))
    return value >= 99.5 if level == "max" else value <= 0.5


def fields(observation: Observation) -> list[int]:
    return [i for i in content_indices(observation) if is_field(observation.ui_elements[i])]


def form_fields(observation: Observation) -> list[int]:
    """Editable fields that are not a search box (a search box does not mean a form is open)."""
    out = []
    for i in fields(observation):
        names = " ".join(
            [*element_names(observation, i), observation.ui_elements[i].resource_name or ""]
        )
        if not any(w in text_lib.normalize(names) for w in SEARCH_WORDS):
            out.append(i)
    return out


def drop_downs(observation: Observation) -> list[int]:
    """Clickable drop-downs on the screen (Android's Spinner, or a control its app names a
    spinner), such as the label next to a contact's phone number."""
    out = []
    for i in content_indices(observation):
        element = observation.ui_elements[i]
        kind = (element.class_name or "").rsplit(".", 1)[-1].lower()
        resource = (element.resource_name or "").rsplit("/", 1)[-1].lower()
        if element.is_clickable and not is_field(element) and "spinner" in (kind, resource):
            out.append(i)
    return out


def field_text(element: Element) -> str:
    """What a field holds (a hint shown as text is not content)."""
    value = (element.text or "").strip()
    if value and element.hint_text and value == element.hint_text.strip():
        return ""
    return value


def find_field(
    observation: Observation, field: str, exclude: Sequence[int] = (), minimum: float = 0.6
) -> int | None:
    terms = text_lib.field_terms(field)
    best, best_score = None, minimum
    for i in form_fields(observation):
        if i in exclude:
            continue
        element = observation.ui_elements[i]
        names = [n for n in element_names(observation, i) if n != field_text(element)]
        if element.resource_name:
            names.append(element.resource_name.rsplit("/", 1)[-1].replace("_", " "))
        score = max((text_lib.label_relevance(terms, n) for n in names), default=0.0)
        if score >= best_score:
            best, best_score = i, score
    return best


def more_below(observation: Observation) -> int | None:
    """A scrollable container whose content runs past its bottom edge (worth scrolling), or None.

    A list whose last item ends well above the container's bottom has nothing more to show;
    scrolling it would change nothing and cost a failed step.
    """
    elements = observation.ui_elements
    for i in content_indices(observation):
        container = elements[i]
        if not container.is_scrollable:
            continue
        box = element_box(container, observation.screen_size)
        if box is None:
            continue
        inside = [
            element_box(elements[j], observation.screen_size)
            for j in range(len(elements))
            if j != i and not is_system(elements[j])
        ]
        inside = [b for b in inside if b is not None and box.x_min <= b.center[0] <= box.x_max]
        inside = [b for b in inside if box.y_min <= b.y_min <= box.y_max + 200]
        if any(b.y_max >= box.y_max - 8 or b.height <= 2 for b in inside):
            return i
        rows = repeated_rows(inside)
        if rows is not None and rows[1] + 2 * rows[0] > box.y_max + 8:
            return i  # a next row would not fit whole, and lists hide rows they cannot show
    return None


def repeated_rows(
    boxes: Sequence[representation_utils.BoundingBox],
) -> tuple[float, float] | None:
    """(pitch, top of the last row) of a list's repeating rows, or None without a repeat.

    Rows repeat the same parts (a title at the same x with the same height), so the most
    repeated such part gives the distance between rows and where the last one starts.
    """
    groups: dict[tuple[int, int], set[int]] = {}
    for b in boxes:
        groups.setdefault((round(b.x_min), round(b.height)), set()).add(round(b.y_min))
    best: tuple[int, float, float] | None = None  # (count, -last top, pitch)
    for tops in groups.values():
        ordered = sorted(tops)
        steps = sorted(b - a for a, b in itertools.pairwise(ordered))
        if not steps:
            continue
        # The most repeated part; among equals the highest, which is where a row starts.
        candidate = (len(ordered), -float(ordered[-1]), float(steps[len(steps) // 2]))
        if best is None or candidate[:2] > best[:2]:
            best = candidate
    return (best[2], -best[1]) if best is not None else None


def has_up_button(observation: Observation) -> bool:
    return any(
        text_lib.normalize(element_label(observation.ui_elements[i])) in ("navigate up", "back")
        for i in content_indices(observation)
    )


def screen_text(observation: Observation) -> list[str]:
    """Every text line on screen: element labels, then OCR lines not already among them."""
    lines: list[str] = []
    for i in content_indices(observation):
        for name in labels(observation.ui_elements[i]):
            if name not in lines:
                lines.append(name)
    known = {text_lib.normalize(line) for line in lines}
    for line in observation.ocr_lines:
        if text_lib.normalize(line.text) not in known:
            lines.append(line.text)
    return lines
