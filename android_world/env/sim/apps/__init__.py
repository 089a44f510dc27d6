"""Simulated apps. Each app is ONE module in this folder; it is found automatically (a large app
may keep parts in helper modules beside it, `calendar_dates.py`, say: they hold no `App`).

How to write an app
===================

Create `android_world/env/sim/apps/<name>.py` with one `App` subclass whose `package` is the
app's entry in `android_world.env.device.APPS` (e.g. "com.google.android.contacts"). Nothing
else needs editing: `discover()` imports every module here and maps package -> class; packages
without a module get a generic title-only screen. Two classes with the same package is an error.

    from android_world.env.sim import widgets as w
    from android_world.env.sim.app import App, Screen

    DB = "/data/data/com.example/databases/things.db"     # the real app's db path and tables

    class ThingsApp(App):
        package = "com.example"

        def install(self) -> None:                        # once per fresh device
            self.device.sqlite_execute(DB, "CREATE TABLE IF NOT EXISTS thing (id INTEGER PRIMARY KEY, name TEXT)")

        def main_screen(self) -> Screen:
            return ThingList(self)

    class ThingList(Screen):
        def build(self):                                   # called for EVERY observation
            rows = self.device.sqlite_query(DB, "SELECT * FROM thing ORDER BY name")
            return w.with_fab(
                w.column(
                    w.app_bar("Things", actions=[w.icon_button("More options", "more", self.more)]),
                    w.scroll_list("things", *[w.list_row(r["name"], on_click=lambda r=r: self.push(ThingEdit(self.app, r["id"]))) for r in rows]),
                    flex=1,
                ),
                w.fab("Add thing", lambda: self.push(ThingEdit(self.app, None))),
            )

        def more(self):
            self.show_menu([("Delete all", lambda: self.show_dialog(self.confirm))])

        def confirm(self):                                 # dialog builders run every frame too
            return w.dialog("Delete all?", "This cannot be undone.",
                            buttons=[("Cancel", self.dismiss), ("Delete", self.delete_all)])

        def delete_all(self):
            self.device.sqlite_execute(DB, "DELETE FROM thing", ())
            self.dismiss()

    class ThingEdit(Screen):
        def __init__(self, app, thing_id):
            super().__init__(app)
            self.thing_id, self.name = thing_id, ""       # drafts are plain attributes

        def build(self):
            return w.column(
                w.app_bar("New thing", on_up=self.close, actions=[w.button("Save", self.save, variant="text", w=200)]),
                w.text_field(self.name, self.set_name, hint="Name", key="name"),
                flex=1,
            )

        def set_name(self, text): self.name = text
        def save(self):
            self.device.sqlite_execute(DB, "INSERT INTO thing (name) VALUES (?)", (self.name,))
            self.close()

Rules and building blocks
-------------------------

* Immediate mode. `Screen.build()` returns a fresh `widgets.Node` tree on every observation, read
  from the app's data; never cache nodes. Handlers are closures (`on_click`, `on_long_click`,
  `on_change`, `on_enter`); the phone calls them, then rebuilds. Bind loop variables with default
  arguments (`lambda r=r: ...`).
* Data lives behind the device facts (`self.device`, a `SimController`): sqlite databases at the
  real app's path and table names, files under `/storage/emulated/0`, settings. Tasks seed and
  check the same places, so a screen must show what the database holds *now* (tasks may write
  between steps). Only transient UI state (drafts, selected tab, open dialog) lives in attributes.
  `self.device.device_time()` is the phone's clock; `self.app.rng` is the seeded RNG (never use
  the module-level `random`).
* Layout: `column(...)`, `row(...)`, `spacer(h=..)`/`spacer(flex=1)`; any node takes `h`, `w`,
  `flex`, `pad=(l, t, r, b)`, `gap`, `align`. The screen root fills the area between the status
  bar and the navigation bar (or the keyboard). Give the scrolling part `flex=1`.
* Widgets (`widgets.py`): `app_bar(title, on_up=..., actions=[...])` ("Navigate up" arrow, title,
  trailing `icon_button(desc, glyph, handler)`s or text buttons); `list_row(title, summary,
  on_click=, on_long_click=, icon=, trailing=, selected=)`; `switch_row`, `checkbox_row`,
  `radio_row`; `switch`, `checkbox`; `button(text, handler, variant="tonal"|"filled"|"outlined"
  |"text")`; `fab(desc, handler)` + `with_fab(content, fab)`; `text_field(value, on_change,
  hint=, key=, multiline=, on_enter=)`; `seekbar`; `number_picker(value, lo, hi, on_change,
  desc=, key=)`; `tabs(labels, selected, on_select, bottom=)`; `label(text, size=, color="text"|
  "secondary"|"accent", max_lines=)`; `divider()`; `empty_state(text)`. Glyph names for icons are
  listed in `render.GLYPHS` (unknown names draw the description's first letter).
* Text fields: tapping one focuses it (`screen.focus = key`) and the keyboard appears (the
  content area shrinks above it). Typing calls `on_change(old_text + typed)`; the keyboard's Enter
  calls `on_enter` (single-line), inserts "\\n" (multiline), or moves to the next field. Keys must
  be unique per screen. Back first hides the keyboard.
* Lists longer than the screen: put rows in `scroll_list(key, *rows)`. Only rows inside the
  viewport are in the tree; `scroll`/`swipe` actions drag it by the finger's travel (a
  whole-screen scroll moves ~1200 px, about 6 rows), offsets are kept per screen. Lists grow with
  their rows, so several `scroll down`s reach the end of a long list.
* Dialogs and menus: `self.show_dialog(builder)` where `builder()` returns `widgets.dialog(title,
  message, body=[nodes], buttons=[(text, handler), ...])`, rebuilt every frame (a dialog may hold
  text fields and pickers); `self.show_menu([(text, handler), ...])` for overflow menus (a choice
  closes the menu first). `self.dismiss()` closes either; Back or a tap outside closes them too
  (`show_dialog(builder, dismissable=False)` to prevent the tap-outside). While one is open only
  it (plus the system bars and keyboard) is in the accessibility tree; a focused text field in a
  dialog brings up the keyboard and the dialog moves above it.
* Multi-selection: subclass `app.Selecting` next to `Screen` (long press selects, taps then
  toggle rows, Back clears), or `app.OrderedSelecting` when the order rows were picked in matters
  (media apps add a selection to a playlist in that order); `app.folder_entries(device, path)`
  lists a folder as file managers do.
* Time that passes on its own: every agent step moves `self.phone.uptime_ms` on by
  `phone.STEP_MS` (5 s), a `wait` too; `App.time_passed()` is called then for running apps
  (a video that reaches its end closes its player there, not in `build()`). Device time, which
  tasks read, stays frozen. A screen that shows passing time reads it through
  `self.phone.uptime_ms` or `self.phone.clock_ticks()` (never `phone.version` directly): a frame
  whose build read neither is kept as it is when a step's time passes.
* Drawing: a `Node(kind="canvas", clickable=True, on_change=...)` gets each drag as a stroke
  `[(x0, y0), (x1, y1)]` and each tap as `[(x, y)]`; it draws `style["strokes"]`.
* Device facts both the app and its tasks need (database paths, schemas, folders, file
  formats) go in `android_world/env/device_facts/<app>.py`, which both import (task code never
  imports `env.sim`). `device_facts.media` writes and reads MP3, M4A and MP4 files.
* Pickers: build them from `number_picker`s inside a dialog body (time, date, duration), or from
  `radio_row`s for a list of choices.
* Pictures: `w.image_view(w.Bitmap(key, pil_image), fit="contain"|"cover"|"stretch")` draws
  pixels and, like an ImageView, has no text (`key` names the pixels: new pixels, new key). A
  node's `on_drag(sx, sy, ex, ey)` takes any drag that starts on it (a canvas, a photo pager);
  `style["a11y_hidden"]` draws a node but keeps it out of the tree (a web page's empty boxes).
* Opening files: an App's `opens = (".jpg", ...)` and `open_file(path)` make Files offer it in
  "Open with"; `phone.launch(package, opening=path)` does what that choice does.
* Navigation: `self.push(Screen)` opens a page, `self.close()` leaves it (the root screen returns
  to the launcher), `self.app.replace(Screen)`; override `Screen.on_back()` to intercept Back.
  `Screen.activity` overrides the app's activity name for `foreground_activity()`.
  `self.toast(text)` shows a transient message until the next tap.
* Tap semantics: the deepest clickable node under the point handles it; a long press uses
  `on_long_click` when the node is long-clickable, else it acts like a tap, as on Android.
* Accessibility: the tree agents see comes from your nodes, with upstream's rule (leaves,
  described nodes and scrollables become elements). A clickable row is reached through its title
  text; give icon-only buttons a `desc` ("Add contact", "More options", "Delete").
* Tests: `tests/sim/test_sim_<app>.py`, drive the app through `SimEnv.execute_action` only.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from android_world.env.sim.app import App


@cache
def discover() -> dict[str, type[App]]:
    """package name -> App class, from every module in this folder."""
    from android_world.env.sim.app import App

    found: dict[str, type[App]] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, App) and cls.__module__ == module.__name__ and cls.package:
                if cls.package in found:
                    raise RuntimeError(
                        f"Two simulated apps claim {cls.package}: "
                        f"{found[cls.package].__name__} and {cls.__name__}."
                    )
                found[cls.package] = cls
    return found
