"""Clock (DeskClock): Alarm, Clock, Timer, Stopwatch and Bedtime tabs.

Upstream checks the Clock on screen only (a "DeskClock" activity plus buttons described
"Pause"/"Lap"/"Start", the timer's "00h 00m 00s" display), so most state here is what the
real app keeps in its shared preferences: the stopwatch and the started timers live in a
JSON file under the app's shared_prefs, which clearing the app data removes (that is how
upstream resets the stopwatch). The digits typed into a new timer are transient, as on a phone.

The phone's clock is frozen for tasks, so a running stopwatch measures time in interaction
ticks (the phone's frame version): each action moves it on a little, like real time would.
"""

from __future__ import annotations

import json
from typing import Any

from android_world.env.sim import widgets as w
from android_world.env.sim.app import App, Screen
from android_world.env.sim.widgets import Node

PACKAGE = "com.google.android.deskclock"
STATE_FILE = f"/data/data/{PACKAGE}/shared_prefs/com.google.android.deskclock_preferences.json"
TABS = ("Alarm", "Clock", "Timer", "Stopwatch", "Bedtime")
MS_PER_TICK = 1300
MAX_TIMER_DIGITS = 6


def timer_fields(digits: str) -> tuple[int, int, int]:
    """Hours, minutes, seconds of a timer entry filled from the right ("123" = 1m 23s)."""
    padded = digits.rjust(MAX_TIMER_DIGITS, "0")[-MAX_TIMER_DIGITS:]
    return int(padded[0:2]), int(padded[2:4]), int(padded[4:6])


def format_stopwatch(ms: int) -> str:
    minutes, rest = divmod(ms, 60_000)
    seconds, millis = divmod(rest, 1000)
    return f"{minutes:02d}:{seconds:02d}.{millis // 10:02d}"


def format_duration(total_seconds: int) -> str:
    hours, rest = divmod(total_seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


class ClockApp(App):
    package = PACKAGE

    def main_screen(self) -> Screen:
        return DeskClock(self)

    # persisted state ------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        default: dict[str, Any] = {
            "stopwatch": {"running": False, "accumulated_ms": 0, "started_tick": 0, "laps": []},
            "timers": [],
        }
        if not self.device.exists(STATE_FILE):
            return default
        try:
            loaded = json.loads(self.device.read_text(STATE_FILE))
        except ValueError:
            return default
        return {**default, **loaded}

    def save_state(self, state: dict[str, Any]) -> None:
        self.device.write_text(STATE_FILE, json.dumps(state, sort_keys=True))

    def tick(self) -> int:
        return self.phone.clock_ticks()

    def stopwatch_ms(self, stopwatch: dict[str, Any]) -> int:
        running = (
            (self.tick() - stopwatch["started_tick"]) * MS_PER_TICK if stopwatch["running"] else 0
        )
        return stopwatch["accumulated_ms"] + max(0, running)


class DeskClock(Screen):
    """One activity with bottom navigation, as the real DeskClock."""

    activity = "com.android.deskclock.DeskClock"

    def __init__(self, app: ClockApp):
        super().__init__(app)
        self.clock = app
        self.tab = 0
        self.digits = ""
        self.adding_timer = False
        self.alarms: list[tuple[int, int, bool]] = [(8, 30, False), (9, 0, False)]
        self.new_hour, self.new_minute = 7, 0

    def build(self) -> Node:
        name = TABS[self.tab]
        content = {
            "Alarm": self._alarm,
            "Clock": self._clock,
            "Timer": self._timer,
            "Stopwatch": self._stopwatch,
            "Bedtime": self._bedtime,
        }[name]()
        nav = w.tabs(TABS, self.tab, self._select, bottom=True, h=150, res_id="navigation_bar_item")
        return w.column(
            w.app_bar(name, actions=[w.icon_button("More options", "more", self._more)]),
            content,
            nav,
            flex=1,
        )

    def _select(self, index: int) -> None:
        self.tab = index

    def _more(self) -> None:
        self.show_menu(
            [("Settings", lambda: None), ("Send feedback", lambda: None), ("Help", lambda: None)]
        )

    # Alarm ----------------------------------------------------------------------------------
    def _alarm(self) -> Node:
        rows = [
            w.list_row(
                f"{hour:02d}:{minute:02d}",
                "Not scheduled" if not on else "Tomorrow",
                trailing=w.switch(
                    on, f"{hour:02d}:{minute:02d}", lambda value, i=i: self._toggle_alarm(i, value)
                ),
                on_click=lambda: None,
                key=f"alarm_{i}",
                h=220,
            )
            for i, (hour, minute, on) in enumerate(self.alarms)
        ]
        return w.with_fab(
            w.scroll_list("alarm_list", *rows), w.fab("Add alarm", self._add_alarm, glyph="add")
        )

    def _toggle_alarm(self, index: int, value: bool) -> None:
        hour, minute, _ = self.alarms[index]
        self.alarms[index] = (hour, minute, value)

    def _add_alarm(self) -> None:
        self.new_hour, self.new_minute = 7, 0
        self.show_dialog(self._time_picker)

    def _time_picker(self) -> Node:
        return w.dialog(
            "Select time",
            body=[
                w.row(
                    w.number_picker(
                        self.new_hour, 0, 23, self._set_hour, desc="hour", key="picker_hour"
                    ),
                    w.label(":", size=64, center=True, w=60, h=418),
                    w.number_picker(
                        self.new_minute, 0, 59, self._set_minute, desc="minute", key="picker_minute"
                    ),
                    h=430,
                    align="center",
                )
            ],
            buttons=[("Cancel", self.dismiss), ("OK", self._confirm_alarm)],
        )

    def _set_hour(self, value: int) -> None:
        self.new_hour = value

    def _set_minute(self, value: int) -> None:
        self.new_minute = value

    def _confirm_alarm(self) -> None:
        self.alarms.append((self.new_hour, self.new_minute, True))
        self.alarms.sort()
        self.dismiss()

    # Clock ----------------------------------------------------------------------------------
    def _clock(self) -> Node:
        now = self.device.device_time()
        return w.with_fab(
            w.column(
                w.spacer(h=120),
                w.label(
                    now.strftime("%H:%M"), size=150, center=True, h=220, res_id="digital_clock"
                ),
                w.label(
                    now.strftime("%a, %b %-d"),
                    size=44,
                    color="secondary",
                    center=True,
                    h=80,
                    res_id="date",
                ),
                w.spacer(flex=1),
                flex=1,
            ),
            w.fab("Cities", lambda: None, glyph="location"),
        )

    # Timer ----------------------------------------------------------------------------------
    def _timer(self) -> Node:
        timers = self.clock.state()["timers"]
        if timers and not self.adding_timer:
            return self._timer_list(timers)
        return self._timer_entry(bool(timers))

    def _timer_entry(self, has_timers: bool) -> Node:
        hours, minutes, seconds = timer_fields(self.digits)

        def key(text: str) -> Node:
            return w.button(text, lambda text=text: self._digit(text), variant="tonal", h=170)

        display = w.label(
            f"{hours:02d}h {minutes:02d}m {seconds:02d}s",
            size=90,
            center=True,
            h=170,
            desc=f"{hours} hours, {minutes} minutes, {seconds} seconds",
            res_id="timer_setup_time",
        )
        pad = w.column(
            w.row(key("1"), key("2"), key("3"), h=170, gap=36),
            w.row(key("4"), key("5"), key("6"), h=170, gap=36),
            w.row(key("7"), key("8"), key("9"), h=170, gap=36),
            w.row(
                key("00"),
                key("0"),
                w.icon_button(
                    "Delete", "backspace", self._delete_digit, res_id="timer_setup_delete"
                ),
                h=170,
                gap=36,
            ),
            gap=20,
            pad=(120, 0, 120, 0),
        )
        bottom = w.row(
            w.spacer(),
            w.button("Cancel", self._cancel_entry, variant="text", w=240)
            if has_timers
            else w.spacer(w=240),
            w.icon_button("Start", "play", self._start_timer, res_id="fab")
            if self.digits
            else w.spacer(w=144),
            w.spacer(w=240),
            w.spacer(),
            h=170,
            align="center",
        )
        return w.column(
            w.spacer(h=40),
            display,
            w.divider(),
            w.spacer(h=40),
            pad,
            w.spacer(flex=1),
            bottom,
            flex=1,
        )

    def _digit(self, text: str) -> None:
        digits = (self.digits + text).lstrip("0")
        if len(digits) <= MAX_TIMER_DIGITS:
            self.digits = digits

    def _delete_digit(self) -> None:
        self.digits = self.digits[:-1]

    def _cancel_entry(self) -> None:
        self.digits = ""
        self.adding_timer = False

    def _start_timer(self) -> None:
        hours, minutes, seconds = timer_fields(self.digits)
        total = hours * 3600 + minutes * 60 + seconds
        if total <= 0:
            return
        state = self.clock.state()
        state["timers"].append({"length_s": total, "remaining_s": total, "running": True})
        self.clock.save_state(state)
        self.digits = ""
        self.adding_timer = False

    def _timer_list(self, timers: list[dict[str, Any]]) -> Node:
        cards = []
        for i, timer in enumerate(timers):
            running = timer["running"]
            cards.append(
                w.column(
                    w.label(
                        format_duration(timer["length_s"]) + " timer",
                        size=36,
                        color="secondary",
                        center=True,
                        h=70,
                    ),
                    w.label(
                        format_duration(timer["remaining_s"]),
                        size=110,
                        center=True,
                        h=170,
                        res_id="timer_time_text",
                    ),
                    w.row(
                        w.button(
                            "Delete", lambda i=i: self._delete_timer(i), variant="text", w=240
                        ),
                        w.icon_button(
                            "Pause" if running else "Start",
                            "pause" if running else "play",
                            lambda i=i: self._toggle_timer(i),
                        ),
                        w.button("+1:00", lambda i=i: self._add_minute(i), variant="text", w=240),
                        h=170,
                        gap=60,
                        align="center",
                    ),
                    h=440,
                )
            )
        return w.column(
            w.scroll_list("timer_list", *cards, flex=1),
            w.row(w.spacer(), w.button("Add timer", self._new_timer, w=360), w.spacer(), h=160),
            flex=1,
        )

    def _update_timer(self, index: int, **changes: Any) -> None:
        state = self.clock.state()
        state["timers"][index].update(changes)
        self.clock.save_state(state)

    def _toggle_timer(self, index: int) -> None:
        self._update_timer(index, running=not self.clock.state()["timers"][index]["running"])

    def _add_minute(self, index: int) -> None:
        timer = self.clock.state()["timers"][index]
        self._update_timer(
            index, remaining_s=timer["remaining_s"] + 60, length_s=timer["length_s"] + 60
        )

    def _delete_timer(self, index: int) -> None:
        state = self.clock.state()
        del state["timers"][index]
        self.clock.save_state(state)

    def _new_timer(self) -> None:
        self.adding_timer = True
        self.digits = ""

    # Stopwatch ------------------------------------------------------------------------------
    def _stopwatch(self) -> Node:
        stopwatch = self.clock.state()["stopwatch"]
        elapsed = self.clock.stopwatch_ms(stopwatch)
        laps = [
            w.list_row(f"# {i + 1}", format_stopwatch(ms), key=f"lap_{i}", h=150)
            for i, ms in reversed(list(enumerate(stopwatch["laps"])))
        ]
        if stopwatch["running"]:
            left = w.icon_button("Lap", "refresh", self._lap)
            main = w.icon_button("Pause", "pause", self._pause, res_id="fab")
        else:
            left = w.icon_button("Reset", "refresh", self._reset) if elapsed else w.spacer(w=144)
            main = w.icon_button("Start", "play", self._start, res_id="fab")
        return w.column(
            w.spacer(h=80),
            w.label(
                format_stopwatch(elapsed),
                size=130,
                center=True,
                h=200,
                res_id="stopwatch_time_text",
            ),
            w.spacer(h=40),
            w.scroll_list("laps", *laps, flex=1),
            w.row(
                w.spacer(),
                left,
                w.spacer(w=120),
                main,
                w.spacer(w=264),
                w.spacer(),
                h=200,
                align="center",
            ),
            flex=1,
        )

    def _save_stopwatch(self, **changes: Any) -> None:
        state = self.clock.state()
        state["stopwatch"].update(changes)
        self.clock.save_state(state)

    def _start(self) -> None:
        self._save_stopwatch(running=True, started_tick=self.clock.tick())

    def _pause(self) -> None:
        stopwatch = self.clock.state()["stopwatch"]
        self._save_stopwatch(running=False, accumulated_ms=self.clock.stopwatch_ms(stopwatch))

    def _lap(self) -> None:
        stopwatch = self.clock.state()["stopwatch"]
        self._save_stopwatch(laps=[*stopwatch["laps"], self.clock.stopwatch_ms(stopwatch)])

    def _reset(self) -> None:
        self._save_stopwatch(running=False, accumulated_ms=0, started_tick=0, laps=[])

    # Bedtime --------------------------------------------------------------------------------
    def _bedtime(self) -> Node:
        return w.column(
            w.spacer(h=160),
            Node(kind="icon", cls="android.widget.ImageView", h=200, style={"glyph": "bell"}),
            w.label("Set a regular bedtime", size=52, center=True, h=100),
            w.label(
                "Get reminders and a calmer screen at night",
                color="secondary",
                center=True,
                max_lines=2,
                pad=(80, 0, 80, 0),
            ),
            w.spacer(h=60),
            w.row(
                w.spacer(),
                w.button("Get started", lambda: None, variant="filled", w=380),
                w.spacer(),
                h=140,
            ),
            w.spacer(flex=1),
            flex=1,
        )
