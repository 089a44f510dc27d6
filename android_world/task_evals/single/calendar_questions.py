"""More Simple Calendar Pro questions, upstream's (`information_retrieval/proto/tasks.textproto`).

Each question seeds its relevant events plus 75 random ones drawn as upstream draws them: a
random minute in the 30 days around the device's now (Sep 30 15:34 to Oct 30 15:34), 15-60
minutes long, realistic titles, and rejected when they meet ALL of the question's exclusion
conditions (upstream's `check_event_conditions`: a date condition is met by any overlap of the
event's span; "equal to" on both date and time means the instant falls inside the event). The
goal's date is worded as a person would ("tomorrow", "this Monday", "October 16"), and the
answer is scored by `answer_check` with upstream's rules.
"""

from __future__ import annotations

import dataclasses
import datetime
import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from android_world.env import interface
from android_world.env.json_action import JSONAction
from android_world.task_evals import oracle_utils as ui
from android_world.task_evals import upstream_pools
from android_world.task_evals.answer_check import DATE_FORMAT, MatchType
from android_world.task_evals.single import calendar as cal
from android_world.task_evals.single import information_retrieval as ir

UTC = datetime.UTC
NOW = ir.NOW
TODAY = ir.TODAY
N_NOISE = 75
NOISE_WINDOW = datetime.timedelta(days=30)
DEFAULT_DURATION_S = 30 * 60  # upstream's duration for an event the proto gives none
SECTION_FORMAT = "%A, %B %d, %Y"  # the app's day headers in the list view and search

# ---- upstream's parameter pools (duplicates kept: they weight `random.choice`) ---------------

DATES = [f"October {day} 2023" for day in range(15, 30)]
NEXT_WEEK_DATES = [f"October {day} 2023" for day in range(16, 23)]
DURATIONS = upstream_pools.IR_DURATIONS
TIMES = upstream_pools.IR_TIMES
MEETING_TIMES = ["11:00", "1:30pm", "9:45am", *TIMES]
NEXT_WEEK_TIMES = [{"12pm": "12:00pm", "8:00pm": "8pm", "12am": "12:00am"}.get(t, t) for t in TIMES]
FIRST_AFTER_TIMES = [
    "18:05",
    "11:00am",
    "1:30pm",
    "9:45am",
    "10:00am",
    "3:15pm",
    "12pm",
    "6:30am",
    "8:00pm",
    "5:20pm",
    "7:45am",
    "4pm",
    "10:30am",
    "16:15",
    "9:15pm",
    "11:30am",
    "20:00",
]
RANGE_START_TIMES = [
    "11:00am",
    "1:30pm",
    "9:45am",
    "10:00am",
    "3:15pm",
    "12pm",
    "6:30am",
    "5:20pm",
    "7:45am",
    "4pm",
    "10:30am",
    "4:15pm",
    "11:30am",
]
EVENTS_ON_DATE_TITLES = [
    "Data Dive",
    "Bug Bash",
    "Dan's Birthday Party",
    "Trivia Night",
    *upstream_pools.IR_WORK_EVENT_TITLES,
    *upstream_pools.IR_LEISURE_EVENT_TITLES,
]
NEXT_EVENT_TIMES = [
    "3:53pm",
    "21:45",
    "5pm",
    "17:30",
    "16:00",
    "18:30",
    "18:45",
    "7pm",
    "7:15pm",
    "21:45",
    "8pm",
    "8:10pm",
    "12:00am",
    "5:20pm",
    "23:59",
    "4:00pm",
    "16:15",
    "9:15pm",
    "20:40",
    "22:35",
]
NEXT_EVENT_PAST_TIME = "12:00am"  # before the device's 15:34: see SimpleCalendarNextEvent
_COMMON_TITLES = upstream_pools.IR_WORK_EVENT_TITLES
_LEISURE_TITLES = upstream_pools.IR_LEISURE_EVENT_TITLES
TITLES = ["Team Meeting", "1-on-1 with Manager", *_COMMON_TITLES, *_LEISURE_TITLES]
LOCATION_TITLES = ["Marketing Brainstorm", "Lunch with Client", "Team Offsite", *TITLES[2:]]
NEXT_WEEK_TITLES = [*_COMMON_TITLES, "Meet with {person}", *_LEISURE_TITLES]
NEXT_EVENT_TITLES = TITLES
FIRST_AFTER_TITLES = [
    "Sales Call",
    "Client Meeting",
    "Training Session",
    "Project Kickoff",
    "Team Brainstorming",
    "Dentist Appointment",
    "Haircut",
    "Grocery Shopping",
    "School Pickup",
    "Soccer Practice",
]
RANGE_TITLES = [
    "Gym",
    "Dinner with Friends",
    "Happy Hour",
    "Evening Walk",
    "Yoga Class",
    "Run in the Park",
    "Cooking Class",
    "Movie Night",
    "Grocery Shopping",
    "Pick up Kids from School",
]
PERSONS = [
    "Amanda",
    "John",
    "David",
    "Lucas",
    "James",
    "Ava",
    "Isabella",
    "Mia",
    "Elijah",
    "Charlotte",
    "Emily",
    "Muhammad",
    "Sofia",
    "Mateo",
    "Aaliyah",
    "Isabella",
    "Daniel",
    "Mia",
]
LOCATIONS = [
    "Conference Room A",
    "McDonald's",
    "100 Main St Chicago",
    "City Park",
    "The Coffee Bean",
    "Sarah's apartment",
    "Conference Room A",
    "Zoom meeting",
    "Riverside Restaurant",
    "Local library",
    "Bowling alley",
    "Community center",
    "Online",
    "The beach",
    "John's backyard",
    "State Park",
    "Art Museum",
    "Hiking trail",
    "Downtown",
    "Mall",
    "The gym",
    "School auditorium",
    "Virtual",
]


# ---- exclusion conditions (pure) ------------------------------------------------------------

_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "eq": lambda a, b: a == b,
    "ge": lambda a, b: a >= b,
    "le": lambda a, b: a <= b,
    "contains": lambda a, b: b in str(a),
}


@dataclasses.dataclass(frozen=True)
class Exclusion:
    """One of upstream's `ExclusionCondition`s: field start_date (a date), start_time (a time)
    or title (a string), op eq, ge, le or contains."""

    field: str
    op: str
    value: Any


def excluded(
    start: datetime.datetime, end: datetime.datetime, title: str, conditions: Sequence[Exclusion]
) -> bool:
    """True when the event meets every condition, so it must not be seeded as noise."""
    if not conditions:
        return False
    eq = {c.field: c.value for c in conditions if c.op == "eq"}
    instant = (
        datetime.datetime.combine(eq["start_date"], eq["start_time"])
        if "start_date" in eq and "start_time" in eq
        else None
    )
    start, end = start.replace(tzinfo=None), end.replace(tzinfo=None)
    for c in conditions:
        if c.field == "title":
            met = _OPS[c.op](title.lower(), str(c.value).lower())
        else:
            if instant is not None:
                lo, hi, value = start, end, instant
            elif c.field == "start_date":
                lo, hi, value = start.date(), end.date(), c.value
            else:
                lo, hi, value = start.time(), end.time(), c.value
            if c.op == "eq":  # any overlap of the event's span with the value
                met = lo <= value <= hi
            else:
                met = _OPS[c.op](lo, value) or _OPS[c.op](hi, value)
        if not met:
            return False
    return True


def noise_event(conditions: Sequence[Exclusion], max_tries: int = 100) -> dict[str, Any]:
    """Upstream's `generate_random_event`: a random minute in the 30 days around now."""
    for _ in range(max_tries):
        start = (
            NOW
            - NOISE_WINDOW / 2
            + datetime.timedelta(minutes=random.randrange(NOISE_WINDOW.days * 24 * 60))
        )
        minutes = random.choice([15, 30, 45, 60])
        end = start + datetime.timedelta(minutes=minutes)
        title, description = cal.event_title(), cal.event_description()
        if not excluded(start, end, title, conditions):
            return cal.make_event(int(start.timestamp()), int(end.timestamp()), title, description)
    raise ValueError("Could not draw a noise event outside the exclusion conditions.")


def event_at(
    day: str, time: str, title: str, duration: str | None = None, location: str = ""
) -> dict[str, Any]:
    """An event as upstream's `create_event_from_proto` builds it (no description)."""
    start = datetime.datetime.combine(ir.date_of(day), ir.parse_time(time), tzinfo=UTC)
    seconds = ir.parse_duration(duration) if duration else DEFAULT_DURATION_S
    ts = int(start.timestamp())
    return cal.make_event(ts, ts + seconds, title, "", location)


# ---- reading the screen (oracles) -----------------------------------------------------------

Row = tuple[datetime.date | None, str, str, str]  # day, title, start "HH:MM", end "HH:MM"


def _section_day(text: str) -> datetime.date | None:
    try:
        return datetime.datetime.strptime(text, SECTION_FORMAT).date()
    except ValueError:
        return None


def rows_on_screen(
    env: interface.AsyncEnv, day: datetime.date | None
) -> tuple[list[Row], datetime.date | None]:
    """Event rows shown (title above "HH:MM - HH:MM"), each under the last day header seen
    (or `day`, for a day view or rows continuing from the previous page)."""
    items = ui.elements(env)
    rows: list[Row] = []
    for i, e in enumerate(items):
        header = _section_day(e.text or "")
        if header is not None:
            day = header
            continue
        m = cal._TIME_RANGE.match(e.text or "")
        title = items[i - 1] if i else None
        if m and title is not None and _is_title(title):
            rows.append((day, title.text or "", f"{m[1]}:{m[2]}", f"{m[3]}:{m[4]}"))
    return rows, day


def _is_title(element: ui.Element) -> bool:
    """A row's title in full view: not a day header or another row's time (which is what sits
    above a time whose own title was scrolled out of the list)."""
    text = element.text or ""
    return (
        bool(text)
        and ui.visible(element)
        and _section_day(text) is None
        and not cal._TIME_RANGE.match(text)
    )


def read_rows(
    env: interface.AsyncEnv,
    day: datetime.date | None = None,
    until: datetime.date | None = None,
    max_scrolls: int = 6,
) -> Iterator[JSONAction]:
    """Collect the event rows of a list (scrolling down to its end, or past `until`).

    `rows = yield from read_rows(env, ...)`.
    """
    seen: list[Row] = []
    for _ in range(max_scrolls + 1):
        page, last_day = rows_on_screen(env, day)
        seen += [row for row in page if row not in seen]
        if until is not None and last_day is not None and last_day > until:
            break
        items = ui.elements(env)
        lst = ui.find(items, lambda e: bool(e.is_scrollable), need_visible=False)
        if lst is None:
            break
        yield JSONAction(action_type="scroll", direction="down", index=lst)
        after, _ = rows_on_screen(env, last_day)
        if after == page:
            break
        day = last_day
    return seen


def search(env: interface.AsyncEnv, query: str) -> Iterator[JSONAction]:
    yield ui.open_app("Simple Calendar Pro")
    yield ui.tap(env, desc="Search")
    yield ui.type_into(env, ui.hint_is("Search"), query, "the search field")


def _end_minutes(start: str, end: str) -> str:
    """An end past midnight ("23:30 - 00:15") sorts after its start."""
    return end if end >= start else "24:00"


# ---- tasks ----------------------------------------------------------------------------------


class _UpstreamCalendarQuestion(ir._InformationRetrieval):
    app_names = ("simple calendar pro",)
    complexity = 1.0

    # `param_pools`: the template's parameters, each drawn from its pool in upstream's order
    # (it fixes what a seed draws).
    time_param = "time"  # the parameter holding the relevant event's start time

    def relevant_events(self) -> list[dict[str, Any]]:
        """The one event the question is about, as the params describe it (with the drawn
        duration and location, if the template has them)."""
        p = self.params
        start = p[self.time_param]
        title = self.event_title()
        return [event_at(p["target_date"], start, title, p.get("duration"), p.get("location", ""))]

    def event_title(self) -> str:
        return self.params["title"]

    def exclusions(self) -> list[Exclusion]:
        raise NotImplementedError

    def on_day_at(self, op: str) -> list[Exclusion]:
        """Noise is redrawn when on the target day and starting `op` the params' time."""
        return [
            Exclusion("start_date", "eq", self.target_day()),
            Exclusion("start_time", op, ir.parse_time(self.params[self.time_param])),
        ]

    def start_clock(self) -> str:
        """The params' time as the app's rows show it ("HH:MM")."""
        return f"{ir.parse_time(self.params[self.time_param]):%H:%M}"

    def expected(self) -> list[Any]:
        return [e["title"] for e in self.relevant_events()]

    row_type = "CalendarEvent"

    def initial_rows(self) -> list[dict[str, Any]]:
        conditions = self.exclusions()
        events = self.relevant_events() + [noise_event(conditions) for _ in range(N_NOISE)]
        random.shuffle(events)
        return events

    def initialize_task(self, env: interface.AsyncEnv) -> None:
        super().initialize_task(env)
        events = self.initial_rows()
        cal.clear(env)
        cal.add_events(env, events)
        env.controller.close_recents()

    def tear_down(self, env: interface.AsyncEnv) -> None:
        cal.clear(env)
        super().tear_down(env)

    def day_rows(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        """Open the goal's day and read its events: `rows = yield from self.day_rows(env)`."""
        yield from cal.open_day(env, self.target_day())
        rows = yield from read_rows(env, self.target_day())
        return rows


class SimpleCalendarEventsOnDate(_UpstreamCalendarQuestion):
    """Every event of one day: one event, no noise on that day."""

    template = (
        "What events do I have {date} in Simple Calendar Pro? Answer with the titles only. If"
        " there are multiple titles, format your answer as a comma separated list."
    )
    difficulty = "medium"
    tags = ("information_retrieval", "parameterized")
    optimal_steps = 4

    param_pools = {
        "time": TIMES,
        "date": DATES,
        "duration": DURATIONS,
        "title": EVENTS_ON_DATE_TITLES,
    }

    def exclusions(self) -> list[Exclusion]:
        return [Exclusion("start_date", "eq", self.target_day())]

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        rows = yield from self.day_rows(env)
        yield from self.answer([title for _, title, _, _ in rows])


class SimpleCalendarNextEvent(_UpstreamCalendarQuestion):
    """The first event after now: one event later today, no noise between 15:30 and it."""

    fidelity_notes = (
        "a draw of upstream's '12:00am' (1 in 20) is drawn again from the other times: that"
        " event lies before the device's 15:34, so upstream's expected answer is not the next"
        " event; every other draw is upstream's",
    )
    template = (
        "What is my next upcoming event in Simple Calendar Pro? Answer with the title only. If"
        " there are multiples titles, format your answer in a comma separated list."
    )
    difficulty = "easy"
    tags = ("complex_ui_understanding", "screen_reading", "information_retrieval", "parameterized")
    optimal_steps = 4

    param_pools = {"time": NEXT_EVENT_TIMES, "duration": DURATIONS, "title": NEXT_EVENT_TITLES}

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        params = ir.draw_params(cls.param_pools)
        if params["time"] == NEXT_EVENT_PAST_TIME:
            params["time"] = random.choice(
                [t for t in NEXT_EVENT_TIMES if t != NEXT_EVENT_PAST_TIME]
            )
        return params

    def relevant_events(self) -> list[dict[str, Any]]:
        p = self.params
        return [event_at(TODAY.strftime(DATE_FORMAT), p["time"], p["title"], p["duration"])]

    def exclusions(self) -> list[Exclusion]:
        return [
            Exclusion("start_date", "eq", TODAY),
            Exclusion("start_time", "le", ir.parse_time(self.params["time"])),
            Exclusion("start_time", "ge", datetime.time(15, 30)),
        ]

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        clock = ui.find(
            ui.elements(env), ui.res_is("com.android.systemui:id/clock"), need_visible=False
        )
        now = (ui.elements(env)[clock].text if clock is not None else "") or "00:00"
        day = TODAY
        yield from cal.open_day(env, day)
        answer: list[str] = []
        for _ in range(7):
            rows = yield from read_rows(env, day)
            upcoming = sorted((start, title) for _, title, start, _ in rows if start >= now)
            if upcoming:
                answer = [title for start, title in upcoming if start == upcoming[0][0]]
                break
            yield ui.click(env, ui.desc_is("Next day"), "Next day")
            day, now = day + datetime.timedelta(days=1), "00:00"
        yield from self.answer(answer)


class SimpleCalendarEventOnDateAtTime(_UpstreamCalendarQuestion):
    """What is on at one instant: the one event whose span covers it."""

    difficulty = "medium"
    tags = ("information_retrieval", "parameterized")
    optimal_steps = 3
    template = (
        "What is on my schedule for {date} at {time} in Simple Calendar Pro? Answer with the"
        " titles only. If there are multiples titles, format your answer in a comma separated"
        " list."
    )

    param_pools = {"date": DATES, "time": TIMES, "duration": DURATIONS, "title": TITLES}

    def exclusions(self) -> list[Exclusion]:
        return self.on_day_at("eq")

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        at = self.start_clock()
        rows = yield from self.day_rows(env)
        yield from self.answer([t for _, t, s, e in rows if s <= at <= _end_minutes(s, e)])


class SimpleCalendarAnyEventsOnDate(_UpstreamCalendarQuestion):
    """Every event of one day: three one-hour events, no noise on that day."""

    difficulty = "easy"
    tags = ("information_retrieval", "parameterized")
    optimal_steps = 4
    template = (
        "Do I have any events {date} in Simple Calendar Pro? Answer with the titles only. If"
        " there are multiples titles, format your answer in a comma separated list."
    )

    param_pools = {"date": DATES, "title": TITLES, "time": TIMES}

    def draw_relevant(self) -> None:
        p = self.params
        titles, times = ir.Pool(TITLES, p["title"]), ir.Pool(TIMES, p["time"])
        events = []
        for _ in range(3):  # upstream's field order: the start time, then the title
            time = times.take()
            events.append({"title": titles.take(), "time": time})
        p["events"] = events

    def relevant_events(self) -> list[dict[str, Any]]:
        day = self.params["target_date"]
        return [event_at(day, e["time"], e["title"], "1 hour") for e in self.params["events"]]

    def exclusions(self) -> list[Exclusion]:
        return [Exclusion("start_date", "eq", self.target_day())]

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        rows = yield from self.day_rows(env)
        yield from self.answer([title for _, title, _, _ in rows])


class SimpleCalendarNextMeetingWithPerson(_UpstreamCalendarQuestion):
    """When the one "Drinks with <person>" event starts, as a date and a 24-hour time.

    As upstream, the event may lie earlier today (e.g. 9:45 on the 15th): it is still the
    expected answer, being the only meeting with that person."""

    match_type = MatchType.DATE_TIME
    difficulty = "medium"
    tags = ("information_retrieval", "parameterized")
    optimal_steps = 5
    template = (
        "When is my next meeting with {person} in Simple Calendar Pro? Express your answer in"
        " the format <month name> <day> <year> <hour in 24-hour format>:<minutes>."
    )

    param_pools = {"person": PERSONS, "date": DATES, "time": MEETING_TIMES}

    def event_title(self) -> str:
        return f"Drinks with {self.params['person']}"

    def exclusions(self) -> list[Exclusion]:
        return [
            Exclusion("title", "contains", self.params["person"]),
            Exclusion("start_date", "eq", self.target_day()),
        ]

    def expected(self) -> list[Any]:
        return [datetime.datetime.combine(self.target_day(), ir.parse_time(self.params["time"]))]

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        person = self.params["person"]
        yield from search(env, person)
        rows = yield from read_rows(env)
        meetings = sorted(
            (day, start) for day, title, start, _ in rows if day and person.lower() in title.lower()
        )
        now = (TODAY, f"{NOW:%H:%M}")
        upcoming = [m for m in meetings if m >= now] or meetings
        day, start = upcoming[0]
        yield from self.answer([f"{day:%B %d %Y} {start}"])


class SimpleCalendarLocationOfEvent(_UpstreamCalendarQuestion):
    """Where one event takes place: its Location field, seen when the event is opened."""

    difficulty = "easy"
    tags = ("search", "parameterized")
    optimal_steps = 4
    template = (
        "What is the location of my {title} event in Simple Calendar Pro? Answer with the"
        " location only."
    )

    param_pools = {
        "title": LOCATION_TITLES,
        "location": LOCATIONS,
        "date": DATES,
        "time": MEETING_TIMES,
    }

    def exclusions(self) -> list[Exclusion]:
        return [Exclusion("title", "contains", self.params["title"])]

    def expected(self) -> list[Any]:
        return [self.params["location"]]

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        title = self.params["title"]
        yield from search(env, title)
        items = ui.elements(env)
        index = next(
            (
                i - 1
                for i in range(1, len(items))
                if cal._TIME_RANGE.match(items[i].text or "")
                and (items[i - 1].text or "").lower() == title.lower()
            ),
            None,
        )
        if index is None:
            raise RuntimeError(f"Oracle found no event {title!r} in the search results.")
        yield JSONAction(action_type="click", index=index)
        where = ui.find(ui.elements(env), ui.hint_is("Location"), need_visible=False)
        yield from self.answer([(ui.elements(env)[where].text or "") if where is not None else ""])


class SimpleCalendarEventsInNextWeek(_UpstreamCalendarQuestion):
    """The two events of Monday the 16th to Sunday the 22nd (no noise from today to the 22nd)."""

    difficulty = "easy"
    tags = ("data_entry", "parameterized")
    optimal_steps = 3
    template = (
        "What events do I have in the next week in Simple Calendar Pro? Assume the week starts"
        " from Monday. Answer with the titles only. If there are multiples titles, format your"
        " answer in a comma separated list."
    )

    param_pools = {
        "date": NEXT_WEEK_DATES,
        "duration": DURATIONS,
        "title": NEXT_WEEK_TITLES,
        "person": PERSONS,
        "time": NEXT_WEEK_TIMES,
    }

    def draw_relevant(self) -> None:
        p = self.params  # its title already names the person (`format_params`)
        titles = ir.Pool([t.format(person=p["person"]) for t in NEXT_WEEK_TITLES], p["title"])
        dates = ir.Pool(NEXT_WEEK_DATES, p["date"])
        times = ir.Pool(NEXT_WEEK_TIMES, p["time"])
        events = []
        for k in range(2):  # upstream's field order: date, time, then the title
            day, time = dates.take(), times.take()
            title = p["title"] if k == 0 else titles.take()
            events.append({"date": day, "time": time, "title": title})
        p["events"] = events

    def relevant_events(self) -> list[dict[str, Any]]:
        first, second = self.params["events"]
        return [
            event_at(first["date"], first["time"], first["title"], self.params["duration"]),
            event_at(second["date"], second["time"], second["title"]),
        ]

    def exclusions(self) -> list[Exclusion]:
        return [
            Exclusion("start_date", "le", datetime.date(2023, 10, 22)),
            Exclusion("start_date", "ge", datetime.date(2023, 10, 15)),
        ]

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        monday = TODAY + datetime.timedelta(days=7 - TODAY.weekday())
        sunday = monday + datetime.timedelta(days=6)
        yield ui.open_app("Simple Calendar Pro")
        yield ui.tap(env, desc="Change view")
        yield ui.tap(env, text="Event list view")
        rows = yield from read_rows(env, until=sunday)
        yield from self.answer([t for day, t, _, _ in rows if day and monday <= day <= sunday])


class SimpleCalendarFirstEventAfterStartTime(_UpstreamCalendarQuestion):
    """The first event of a day starting at or after a time (noise there ends before it)."""

    difficulty = "easy"
    tags = ("parameterized", "screen_reading")
    optimal_steps = 2
    template = (
        "What is my first event after {time} {date} in Simple Calendar Pro? Answer with the"
        " titles only. If there are multiples titles, format your answer in a comma separated"
        " list."
    )

    param_pools = {
        "date": DATES,
        "title": FIRST_AFTER_TITLES,
        "time": FIRST_AFTER_TIMES,
        "duration": DURATIONS,
    }

    def exclusions(self) -> list[Exclusion]:
        return self.on_day_at("ge")

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        after = self.start_clock()
        rows = yield from self.day_rows(env)
        later = sorted(start for _, _, start, _ in rows if start >= after)
        yield from self.answer([t for _, t, start, _ in rows if later and start == later[0]])


class SimpleCalendarEventsInTimeRange(_UpstreamCalendarQuestion):
    """The events of a day starting between a time and 8pm."""

    difficulty = "easy"
    tags = (
        "complex_ui_understanding",
        "screen_reading",
        "search",
        "transcription",
        "information_retrieval",
        "parameterized",
    )
    optimal_steps = 2
    template = (
        "Do I have any events between {start_time} and 8pm {date} in Simple Calendar Pro? Answer"
        " with the titles only. If there are multiples titles, format your answer in a comma"
        " separated list."
    )

    param_pools = {
        "start_time": RANGE_START_TIMES,
        "date": DATES,
        "title": RANGE_TITLES,
        "duration": DURATIONS,
    }
    time_param = "start_time"

    def exclusions(self) -> list[Exclusion]:
        return [*self.on_day_at("ge"), Exclusion("start_time", "le", datetime.time(20, 0))]

    def oracle_actions(self, env: interface.AsyncEnv) -> Iterator[JSONAction]:
        lo = self.start_clock()
        rows = yield from self.day_rows(env)
        yield from self.answer([t for _, t, start, _ in rows if lo <= start <= "20:00"])
