"""Intent family: questions. Finding the information a question asks for and reading the
answer off the screens: totals of amounts, a day's or week's items, the next item, items with
a label or a done check box, an item's attribute; plus the plan rule for questions."""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable

from android_world.agents.custom.celil_geometry import element_label
from android_world.agents.custom.celil_protocols import Observation
from android_world.agents.custom.offline_roles import offline_reading as reading
from android_world.agents.custom.offline_roles import offline_screen as screen
from android_world.agents.custom.offline_roles import offline_text as text_lib
from android_world.agents.custom.offline_roles.handlers.dates import DateActs
from android_world.agents.custom.offline_roles.offline_common import (
    MAX_SCROLLS_PER_SCREEN,
    Chosen,
    RowWants,
    action_key,
    fact_today,
    is_dated_list,
    make_action,
    middle_y,
    row_wants,
    weekday_year,
)
from android_world.agents.custom.offline_roles.offline_handler import (
    IntentHandler,
    PlanDraft,
    PlanRule,
)
from android_world.agents.custom.offline_roles.offline_intent import (
    DATE_SOURCE_APP,
    FIND_SUB_GOAL,
    READ_DATE_SUB_GOAL,
    Intent,
)
from android_world.env import json_action

_FOUND_FACT = re.compile(r"Find the information[^:\n]*:[ \t]*([^\n;]+)")


def found_answer(context_summary: str) -> str:
    """The answer the executor reported when it finished the question's sub-goal, if any."""
    found = _FOUND_FACT.findall(context_summary or "")
    return found[-1].strip() if found else ""


def question_answer(goal: str, observation: Observation, context_summary: str) -> str:
    """A best-effort answer: what the executor read off the screens for the question, else the
    screen line that shares the most words with it (never invented: empty when nothing
    relates)."""
    reported = found_answer(context_summary)
    if reported:
        return reported if text_lib.answer_fits(goal, reported) else ""
    info = text_lib.parse_goal(goal)
    wanted = set(text_lib.content_words(goal)) - {"answer", "titles", "only", "format", "list"}
    for app in info.apps:
        wanted -= set(text_lib.content_words(app))
    candidates = screen.screen_text(observation)
    for line in (context_summary or "").splitlines():
        if "|" in line:
            candidates += [p.strip() for p in re.split(r"\|+", line) if p.strip()]
    if text_lib.asks_for_number(goal):
        # A number no reader worked out: the first figure on a screen would be a guess.
        return ""
    scored = []
    for line in candidates:
        line_words = set(text_lib.content_words(line))
        overlap = len(line_words & wanted)
        if overlap and len(line) < 120:
            scored.append((overlap, line))
    scored = [(n, line) for n, line in scored if text_lib.answer_fits(goal, line)]
    if not scored:
        return ""
    scored.sort(key=lambda pair: -pair[0])
    return scored[0][1]


def _due_by(goal: str, day: str) -> bool:
    """Items up to the day ("due by October 28"), not on it: "by" right before the day, not
    anywhere in the goal ("separated by commas")."""
    if not day:
        return False
    pattern = rf"\b(?:by|until|up\s+to)\s+(?:the\s+)?(?:end\s+of\s+)?{re.escape(day)}"
    return re.search(pattern, " ".join(goal.split()), re.I) is not None


def screen_answer(goal: str, observation: Observation, context: str) -> str | None:
    """The best screen line for a question, unless it is a qualifier ("Low priority") where
    the question asks for the titles that qualifier picks out."""
    answer = question_answer(goal, observation, context) or None
    if answer and text_lib.asks_for_titles(goal) and text_lib.is_qualifier_label(answer):
        return None
    return answer


def find_done(
    intent: Intent, observation: Observation, history: list[screen.PastStep]
) -> tuple[bool, str]:
    goal = intent.value or ""
    if text_lib.parse_question(goal).kind != "other" or row_wants(goal).labels:
        return False, "the answer needs the whole list read; the executor says when"
    if text_lib.attribute_question(goal) or text_lib.when_with_question(goal):
        return False, "the answer is read off the item found; the executor reads it"
    if goal and question_answer(goal, observation, ""):
        return True, "the screen shows text that answers the question"
    return False, "no answer on screen yet"


class QuestionActs(DateActs):
    """The executor's moves for a question: get the list or day in view and read it."""

    def _find(
        self,
        intent: Intent,
        info: text_lib.GoalInfo,
        obs: Observation,
        history: list[screen.PastStep],
        signature: str,
    ) -> tuple[json_action.JSONAction | None, str, str]:
        del history
        question = text_lib.parse_question(info.goal)
        reveal = self._reveal_done_rows(info.goal, obs, signature)
        if reveal is not None:
            return reveal
        if question.kind == "week":
            listed = self._week_list_step(obs, signature)
            if listed is not None:
                return listed
        if question.kind in ("day", "next"):
            target = self._question_day(question, obs)
            if target is not None and not is_dated_list(obs, target.year):
                moved = self._go_to_day(intent, obs, signature, target)
                if moved is not None:
                    return moved
        listed = question.kind == "week" or (
            question.kind == "other" and bool(row_wants(info.goal).labels)
        )
        if question.kind in ("total", "day", "next") or listed:
            scroll = self._scroll_for(intent, obs, signature, "read the rest of the list")
            if scroll is not None:
                return scroll
        day = self._day_cell(obs, signature, intent)
        if day is not None:
            return day
        return self._navigate(intent, info, obs, signature)

    def _week_list_step(
        self, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """A week is read from a list of days: scroll one that shows day headers; otherwise
        pick a list view where the screen offers one ("Change view", then "Event list view")."""
        if reading.listed_days(obs):
            return self._scroll_for(
                Intent("find", "week"), obs, signature, "read the rest of the week"
            )
        for words in (reading.LIST_VIEW_WORDS, reading.VIEW_WORDS):
            for i in screen.content_indices(obs):
                element = obs.ui_elements[i]
                names = set(text_lib.words(element_label(element)))
                if element.is_clickable and names & words and not names & {"month", "day"}:
                    chosen = self._click(obs, i, signature, "show the events as a list")
                    if chosen is not None:
                        return chosen
        return None

    def _read_question(
        self,
        intent: Intent,
        info: text_lib.GoalInfo,
        obs: Observation,
        context_summary: str,
    ) -> tuple[str, str] | None:
        """(answer, why) once the screens read so far answer the question, else None: an
        answer in another form than the question asks (titles for "how many", a row's figures
        for "which types") is no answer."""
        read = self._read_question_as_read(intent, info, obs, context_summary)
        if read is not None and not text_lib.answer_fits(info.goal, read[0]):
            return None
        return read

    def _read_question_as_read(
        self,
        intent: Intent,
        info: text_lib.GoalInfo,
        obs: Observation,
        context_summary: str,
    ) -> tuple[str, str] | None:
        self._today = self._today or fact_today(context_summary)
        question = text_lib.parse_question(info.goal)
        end_of_list = screen.more_below(obs) is None or self._list_exhausted(intent, obs)
        if question.kind == "total":
            return self._read_total(question, obs, end_of_list)
        if question.kind == "week":
            if reading.listed_days(obs):  # a list of days under day headers (a calendar)
                return self._read_week_headers(question, obs, end_of_list)
            return self._read_week(question, info.goal, obs, end_of_list)
        if question.kind == "other" and row_wants(info.goal).labels:
            year = screen.shown_year(obs) or datetime.date.today().year
            if is_dated_list(obs, year):
                labels = " and ".join(row_wants(info.goal).labels)
                return self._read_dated_list(
                    info.goal, obs, year, lambda d: True, end_of_list, f"any day, {labels}"
                )
        attribute = text_lib.attribute_question(info.goal)
        if question.kind == "other" and attribute is not None:
            return reading.read_attribute(obs, *attribute)
        who = text_lib.when_with_question(info.goal)
        if question.kind == "other" and who is not None:
            return reading.read_when_with(obs, who)
        if question.kind in ("day", "next"):
            target = self._question_day(question, obs)
            if target is not None and question.kind == "day" and is_dated_list(obs, target.year):
                by = _due_by(info.goal, question.day or "")
                return self._read_dated_list(
                    info.goal,
                    obs,
                    target.year,
                    (lambda d: d <= target) if by else (lambda d: d == target),
                    end_of_list,
                    f"{'by' if by else 'on'} {target:%b %d}",
                )
            day, rows = screen.day_view(obs)
            if target is None or day != target:
                return None
            for row in rows:
                self._rows.setdefault((row.title, row.start, row.end), day)
            if not end_of_list:
                return None
            return self._day_answer(question, obs, day)
        return None

    def _read_dated_list(
        self,
        goal: str,
        obs: Observation,
        year: int,
        keep: Callable[[datetime.date], bool],
        end_of_list: bool,
        when: str,
    ) -> tuple[str, str] | None:
        """A list whose items carry a date (to-dos by due date): the titles of the items whose
        date `keep`s, kept to those the question's qualifiers fit (a "high priority" label; a
        done or open check box), or their count for "how many". Read across scrolls; answered
        at the list's end."""
        wants = row_wants(goal)
        for item in screen.list_items(obs):
            # An item may hold several rows (a floating button can bridge two): each title
            # makes a row, and every other element joins the row whose middle is nearest.
            elements = [obs.ui_elements[i] for i in item]
            titles = [
                e
                for e in elements
                if (e.text or "").strip()
                and not e.is_checkable
                and text_lib.parse_date(e.text or "", default_year=year) is None
            ]
            rows: list[list] = [[t] for t in titles]
            for element in elements:
                if element in titles or not titles:
                    continue
                middle = middle_y(element)
                nearest = min(range(len(titles)), key=lambda k: abs(middle_y(titles[k]) - middle))
                rows[nearest].append(element)
            for row in rows:
                self._note_dated_row(row, year, wants)
        if not end_of_list:
            return None
        found = [title for (title, day), fits in self._dated.items() if fits and keep(day)]
        if text_lib.asks_for_count(goal):
            if text_lib.count_qualifier(goal):
                return None  # items of one kind only: the dates alone do not count them
            return str(len(found)), f"{len(found)} list items dated {when} fit the question"
        answer = ", ".join(found)
        if (
            not found
            or not text_lib.asks_for_titles(goal)
            or not text_lib.answer_fits(goal, answer)
        ):
            return None  # the titles read are not what the question asks for
        return answer, f"{len(found)} list items dated {when} fit the question"

    def _reveal_done_rows(
        self, goal: str, obs: Observation, signature: str
    ) -> tuple[json_action.JSONAction, str, str] | None:
        """A question about done items on a list that shows none: lists hide them until their
        menu's "Show completed" asks; open the menu once, then pick that item."""
        if row_wants(goal).done is not True:
            return None
        elements = obs.ui_elements
        content = screen.content_indices(obs)
        if any(elements[i].is_checkable and elements[i].is_checked for i in content):
            return None
        for i in content:
            if re.match(r"\s*show\s+(?:completed|done|finished)\b", elements[i].text or "", re.I):
                return self._click(obs, i, signature, "show the done items")
        if self._menu_for_done:
            return None
        for i in content:
            if (elements[i].content_description or "").strip().lower() == "more options":
                chosen = self._click(obs, i, signature, "look for the done items in the menu")
                if chosen is not None:
                    self._menu_for_done = True
                return chosen
        return None

    def _read_week(
        self, question: text_lib.Question, goal: str, obs: Observation, end_of_list: bool
    ) -> tuple[str, str] | None:
        """Items dated in the week the question names (weeks start on Monday)."""
        year = screen.shown_year(obs) or weekday_year(self._today)
        today = text_lib.parse_date(self._today, default_year=year) if self._today else None
        if today is None or year is None or not is_dated_list(obs, year):
            return None
        monday, sunday = text_lib.week_span(question.qualifier, today)
        return self._read_dated_list(
            goal,
            obs,
            year,
            lambda d: monday <= d <= sunday,
            end_of_list,
            f"{monday:%b %d} to {sunday:%b %d}",
        )

    def _note_dated_row(self, row: list, year: int, wants: RowWants) -> None:
        title = next(
            (e.text or "").strip() for e in row if (e.text or "").strip() and not e.is_checkable
        )
        dates = [
            d
            for e in row
            if (d := text_lib.parse_date(e.text or "", default_year=year)) is not None
        ]
        if not dates:
            return
        labels = text_lib.normalize(" | ".join(label for e in row for label in screen.labels(e)))
        checks = [bool(e.is_checked) for e in row if e.is_checkable]
        done = bool(checks) and checks[0]
        self._dated[(title, dates[0])] = all(
            text_lib.phrase_in(q, labels) for q in wants.labels
        ) and (wants.done is None or done == wants.done)

    def _read_week_headers(
        self, question: text_lib.Question, obs: Observation, end_of_list: bool
    ) -> tuple[str, str] | None:
        """Titles listed under the week's day headers, once a later day or the list's end shows."""
        year = screen.shown_year(obs)
        today = text_lib.parse_date(self._today, default_year=year) if self._today else None
        listed = reading.listed_days(obs)
        if today is None or not listed:
            return None
        monday, sunday = text_lib.week_span(question.qualifier, today)
        for day, title in listed:
            if monday <= day <= sunday:
                self._rows.setdefault((title, (0, 0), (0, 0)), day)
        if not (end_of_list or any(day > sunday for day, _ in listed)):
            return None
        titles = list(
            dict.fromkeys(t for (t, _, _), d in self._rows.items() if monday <= d <= sunday)
        )
        if not titles:
            return None
        return ", ".join(titles), f"the list shows {len(titles)} item(s) from {monday} to {sunday}"

    def _list_exhausted(self, intent: Intent, obs: Observation) -> bool:
        """The last scroll here changed nothing, or the scroll budget for the screen is spent."""
        signature = screen.screen_signature(obs)
        scroll = action_key(make_action(json_action.SCROLL, direction="down"))
        spent = self._scrolls.get((intent.sub_goal, signature), 0) >= MAX_SCROLLS_PER_SCREEN
        return spent or scroll in self._duds.get(signature, set())

    def _read_total(
        self, question: text_lib.Question, obs: Observation, end_of_list: bool
    ) -> tuple[str, str] | None:
        for item in screen.list_items(obs):
            texts = screen.item_texts(obs, item)
            if not any(text_lib.phrase_in(question.qualifier, t) for t in texts):
                continue
            amounts = [a for a in (screen.money(t) for t in texts) if a is not None]
            if amounts:
                # By title and amount: a row cut off by the screen's edge shows fewer of its
                # texts, and read again whole after a scroll it must not count twice.
                self._tally[(texts[0], amounts[0])] = amounts[0]
        if not end_of_list or not self._tally:
            return None
        total = sum(self._tally.values())
        return (
            f"{total:.2f}",
            f"the {len(self._tally)} items naming {question.qualifier!r} add up to {total:.2f}",
        )

    def _question_day(self, question: text_lib.Question, obs: Observation) -> datetime.date | None:
        # A screen without a year (a to-do list): the year in which today's shown weekday
        # falls on its date, else this year (the dates compared are then all of one year).
        year = (
            screen.shown_year(obs)
            or weekday_year(self._today)
            or (None if question.kind == "next" else datetime.date.today().year)
        )
        today = text_lib.parse_date(self._today, default_year=year) if self._today else None
        if question.kind == "next":
            return today + datetime.timedelta(days=self._next_offset) if today else None
        return text_lib.parse_date(question.day, today=today, default_year=year)

    def _day_answer(
        self, question: text_lib.Question, obs: Observation, day: datetime.date
    ) -> tuple[str, str] | None:
        rows = [key for key, seen_on in self._rows.items() if seen_on == day]
        if question.kind == "day":
            rows = [row for row in rows if question.keeps(row[1], row[2])]
            if question.when == "after" and rows:
                first = min(start for _, start, _ in rows)
                rows = [row for row in rows if row[1] == first]
            if not rows:
                return None
            titles = list(dict.fromkeys(title for title, _, _ in rows))
            narrowed = f" {question.when} the goal's time" if question.when else ""
            return (
                ", ".join(titles),
                f"the day view of {day:%B %d %Y} lists {len(titles)} item(s){narrowed}",
            )
        # On today only what starts from now on is upcoming; on a later day, everything is.
        now = screen.status_time(obs) if self._next_offset == 0 else (0, 0)
        upcoming = sorted(
            ((start, title) for title, start, _ in rows if now is None or start >= now),
            key=lambda pair: pair[0],  # equal starts keep the screen's order
        )
        if not upcoming:
            if self._next_offset < 7:
                self._next_offset += 1  # nothing left today: the next day's first item is next
            return None
        first = upcoming[0][0]
        titles = list(dict.fromkeys(t for start, t in upcoming if start == first))
        return ", ".join(titles), f"the first item from {first[0]:02d}:{first[1]:02d} on {day}"


def act_find(
    gen: QuestionActs,
    intent: Intent,
    info: text_lib.GoalInfo,
    obs: Observation,
    history: list[screen.PastStep],
    signature: str,
) -> Chosen | None:
    return gen._find(intent, info, obs, history, signature)


def read_find(
    gen: QuestionActs,
    intent: Intent,
    info: text_lib.GoalInfo,
    obs: Observation,
    context_summary: str,
) -> tuple[str, str] | None:
    return gen._read_question(intent, info, obs, context_summary)


def find_target_ok(
    intent: Intent, obs: Observation, index: int, info: text_lib.GoalInfo | None
) -> bool:
    """The goal's day, the date arrows, and for a week the list view and its switch."""
    label = text_lib.normalize(element_label(obs.ui_elements[index]))
    if info is not None and info.day and label == info.day:
        return True
    if index in screen.date_navigation(obs):
        return True
    week = info is not None and text_lib.parse_question(info.goal).kind == "week"
    # A week reads best as a list: the view switch and the list view.
    return week and bool(set(text_lib.words(label)) & reading.ALL_VIEW_WORDS)


def write_question(d: PlanDraft) -> bool:
    """Read today's date first when the question is relative to it, find the item it names,
    then find the information."""
    info, subs = d.info, d.subs
    if not info.is_question:
        return False
    question = text_lib.parse_question(info.goal)
    if question.needs_today and DATE_SOURCE_APP not in info.apps:
        # "Wednesday", "next": relative to today, which the clock shows.
        subs[:0] = [f"Open {DATE_SOURCE_APP}", READ_DATE_SUB_GOAL]
    attribute = text_lib.attribute_question(info.goal) if question.kind == "other" else None
    who = text_lib.when_with_question(info.goal)
    if attribute is not None:  # "the location of my X event": find X, open it, read
        subs += [f"Search for '{attribute[1]}'", f"Open '{attribute[1]}'"]
    elif who is not None:  # "when is my next meeting with X": X's items show their dates
        subs.append(f"Search for '{who}'")
    subs.append(FIND_SUB_GOAL)
    return True


ASK = PlanRule("question", "questions", write_question)
HANDLERS = (
    IntentHandler(
        "find",
        "questions",
        find_done,
        act_find,
        read=read_find,
        target_ok=find_target_ok,
        evidence="state",
    ),
)
