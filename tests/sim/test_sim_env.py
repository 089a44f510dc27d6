"""SimEnv: upstream action semantics, navigation, keyboard, dialogs, device facts, determinism."""

from __future__ import annotations

import datetime

import numpy as np
import pytest

from android_world.env import device, interface, representation_utils
from android_world.env.json_action import JSONAction
from android_world.env.sim import SimEnv
from android_world.env.sim import widgets as w
from android_world.env.sim.app import Screen
from android_world.env.sim.apps import discover
from android_world.env.sim.apps.settings import SettingsApp

SETTINGS = "com.android.settings"


@pytest.fixture
def env():
    e = SimEnv(seed=0, render=False)
    yield e
    e.close()


def act(env: SimEnv, **kw) -> None:
    env.execute_action(JSONAction(**kw))


def elements(env: SimEnv) -> list[representation_utils.UIElement]:
    return env.get_state().ui_elements


def find(env: SimEnv, text: str) -> int:
    for i, e in enumerate(elements(env)):
        if text in (e.text, e.content_description, e.hint_text):
            return i
    raise AssertionError(f"{text!r} not on screen: {[e.text for e in elements(env)]}")


def texts(env: SimEnv) -> list[str]:
    return [e.text for e in elements(env) if e.text]


def title(env: SimEnv) -> str:
    return next(e.text for e in elements(env) if e.resource_name == "android:id/title")


class Form(Screen):
    """A test page with two single-line fields, a multiline one and a dialog/menu."""

    def __init__(self, app):
        super().__init__(app)
        self.name, self.phone, self.notes = "", "", ""
        self.submitted = 0

    def build(self):
        return w.column(
            w.app_bar(
                "Form", on_up=self.close, actions=[w.icon_button("More options", "more", self.more)]
            ),
            w.text_field(self.name, lambda t: setattr(self, "name", t), hint="Name", key="name"),
            w.text_field(
                self.phone,
                lambda t: setattr(self, "phone", t),
                hint="Phone",
                key="phone",
                on_enter=self.submit,
            ),
            w.text_field(
                self.notes,
                lambda t: setattr(self, "notes", t),
                hint="Notes",
                key="notes",
                multiline=True,
                h=400,
            ),
            flex=1,
        )

    def submit(self):
        self.submitted += 1

    def more(self):
        self.show_menu(
            [
                ("Ask", lambda: self.show_dialog(self.ask_dialog)),
                ("Rename", lambda: self.show_dialog(self.rename_dialog)),
            ]
        )

    def ask_dialog(self):
        return w.dialog("Sure?", "Really?", buttons=[("No", self.dismiss), ("Yes", self.yes)])

    def rename_dialog(self):
        field = w.text_field(
            self.name, lambda t: setattr(self, "name", t), hint="New name", key="rename"
        )
        return w.dialog(
            "Rename", body=[field], buttons=[("Cancel", self.dismiss), ("OK", self.dismiss)]
        )

    def yes(self):
        self.name = "confirmed"
        self.dismiss()


def open_form(env: SimEnv) -> Form:
    act(env, action_type="open_app", app_name="Settings")
    app = env.phone.apps[SETTINGS]
    form = Form(app)
    app.push(form)
    env.phone.changed()
    return form


# ---- AsyncEnv surface ---------------------------------------------------------------------


def test_geometry_and_misc_members(env):
    assert isinstance(env, interface.AsyncEnv)
    assert env.device_screen_size == env.logical_screen_size == (1080, 2400)
    assert env.orientation == 0
    assert env.physical_frame_boundary == (0, 0, 1080, 2400)
    assert env.foreground_activity_name == device.HOME_ACTIVITY
    with pytest.raises(NotImplementedError):
        env.ask_question("?")
    env.display_message("hi")
    env.hide_automation_ui()
    assert env.controller.get_setting("system", "pointer_location") == "0"


def test_state_shape_and_forest(env):
    state = env.get_state(wait_to_stabilize=True)
    assert state.pixels.shape == (2400, 1080, 3) and state.pixels.dtype == np.uint8
    assert all(isinstance(n, representation_utils.AccessibilityNode) for n in state.forest)
    assert [n.unique_id for n in state.forest] == list(range(len(state.forest)))
    assert interface.get_stable_state(env, sleep_duration=0.0).ui_elements == state.ui_elements


def test_launcher_shows_every_app_and_status_bar_time(env):
    shown = texts(env)
    for app in device.APPS:
        assert app.label in shown
    assert "15:34" in shown
    env.controller.set_device_time(datetime.datetime(2023, 10, 15, 9, 5, tzinfo=datetime.UTC))
    assert "09:05" in texts(env)


def test_answer_status_unknown_wait(env):
    env.interaction_cache = "old"
    before = elements(env)
    act(env, action_type="answer", text="Paris, Rome")
    assert env.interaction_cache == "Paris, Rome"
    for kind in ("status", "unknown", "wait"):
        act(env, action_type=kind, goal_status="complete")
    assert elements(env) == before
    env.reset(go_home=False)
    assert env.interaction_cache == ""


def test_reset_go_home(env):
    act(env, action_type="open_app", app_name="Settings")
    env.reset(go_home=True)
    assert env.foreground_activity_name == device.HOME_ACTIVITY


def test_open_app_is_case_insensitive_and_unknown_raises(env):
    for name in ("SETTINGS", "contacts", "Simple Calendar", "camera"):
        act(env, action_type="open_app", app_name=name)
        assert env.foreground_activity_name.split("/")[0] == device.find_app(name).package
    with pytest.raises(ValueError):
        act(env, action_type="open_app", app_name="Minesweeper")


def test_every_app_opens_with_its_package_in_front(env):
    for app in device.APPS:
        act(env, action_type="open_app", app_name=app.label)
        assert env.controller.foreground_package() == app.package
        assert elements(env)


def test_app_discovery_finds_settings():
    assert discover()[SETTINGS] is SettingsApp


# ---- click family -------------------------------------------------------------------------


def test_click_index_is_resolved_against_a_fresh_list(env):
    stale = elements(env)
    env.controller.launch_app("Settings")  # the screen changes behind the agent's back
    fresh = elements(env)
    k = next(i for i, e in enumerate(fresh) if e.text == "Display")
    assert k >= len(stale) or stale[k].bbox_pixels != fresh[k].bbox_pixels
    act(env, action_type="click", index=k)
    assert title(env) == "Display"


def test_click_by_coordinates_and_errors(env):
    box = elements(env)[find(env, "Settings")].bbox_pixels
    act(env, action_type="click", x=int(box.center[0]), y=int(box.center[1]))
    assert env.controller.foreground_package() == SETTINGS
    with pytest.raises(ValueError):
        act(env, action_type="click", index=len(elements(env)))
    with pytest.raises(ValueError):
        act(env, action_type="click", index=-1)
    with pytest.raises(ValueError):
        act(env, action_type="click", x=540, y=50)  # the status bar is not clickable
    with pytest.raises(ValueError):
        act(env, action_type="click", x=5000, y=50)


def test_click_on_a_row_title_opens_the_row(env):
    act(env, action_type="open_app", app_name="Settings")
    act(env, action_type="click", index=find(env, "Network & internet"))
    assert title(env) == "Network & internet"


def test_double_tap_toggles_twice_and_long_press_acts_as_click(env):
    env.controller.put_setting("global", "wifi_on", "0")
    act(env, action_type="open_app", app_name="Settings")
    act(env, action_type="long_press", index=find(env, "Network & internet"))
    act(env, action_type="click", index=find(env, "Internet"))
    act(env, action_type="double_tap", index=find(env, "Wi-Fi"))
    assert env.controller.get_setting("global", "wifi_on") == "0"
    act(env, action_type="click", index=find(env, "Wi-Fi"))
    assert env.controller.get_setting("global", "wifi_on") == "1"
    switch = next(e for e in elements(env) if (e.class_name or "").endswith("Switch"))
    assert switch.is_checked and switch.is_checkable


def test_long_press_on_home_icon_does_not_open_it(env):
    act(env, action_type="long_press", index=find(env, "Clock"))
    assert env.foreground_activity_name == device.HOME_ACTIVITY


# ---- text input and keyboard --------------------------------------------------------------


def test_input_text_clicks_types_and_presses_enter(env):
    form = open_form(env)
    act(env, action_type="input_text", text="Alice", index=find(env, "Name"))
    assert form.name == "Alice"
    focused = [e for e in elements(env) if e.is_focused]
    assert [e.hint_text for e in focused] == ["Phone"]  # Enter moved focus to the next field
    assert any(e.package_name == "com.google.android.inputmethod.latin" for e in elements(env))
    act(env, action_type="input_text", text="555", index=find(env, "Phone"))
    assert form.phone == "555" and form.submitted == 1  # Enter ran the field's IME action
    act(env, action_type="input_text", text=" Smith", index=find(env, "Alice"))
    assert form.name == "Alice Smith"
    act(env, action_type="input_text", text="Bob", index=find(env, "Alice Smith"), clear_text=True)
    assert form.name == "Bob"


def test_multiline_enter_inserts_newline_and_keyboard_keys_type(env):
    form = open_form(env)
    act(env, action_type="input_text", text="line one\nline two", index=find(env, "Notes"))
    assert form.notes == "line one\nline two\n"
    act(env, action_type="keyboard_enter")
    assert form.notes.endswith("\n\n")
    act(env, action_type="click", index=find(env, "h"))
    act(env, action_type="click", index=find(env, "i"))
    act(env, action_type="click", index=find(env, "Delete"))
    assert form.notes.endswith("\n\nh")


def test_typing_without_a_focused_field_is_an_error(env):
    open_form(env)
    with pytest.raises(ValueError):
        act(env, action_type="input_text", text="x")
    with pytest.raises(ValueError):  # tapping a non-field then typing
        act(env, action_type="input_text", text="x", index=find(env, "More options"))
    act(env, action_type="input_text", text="")  # empty text: upstream only warns


def test_back_hides_keyboard_then_leaves_screen(env):
    open_form(env)
    act(env, action_type="click", index=find(env, "Name"))
    assert any(e.is_focused for e in elements(env))
    act(env, action_type="navigate_back")
    assert not any(e.is_focused for e in elements(env)) and title(env) == "Form"
    act(env, action_type="navigate_back")
    assert title(env) == "Settings"
    act(env, action_type="navigate_back")
    assert env.foreground_activity_name == device.HOME_ACTIVITY
    act(env, action_type="open_app", app_name="Settings")
    act(env, action_type="navigate_home")
    assert env.foreground_activity_name == device.HOME_ACTIVITY


def test_menu_dialog_and_dismissal(env):
    form = open_form(env)
    act(env, action_type="click", index=find(env, "More options"))
    act(env, action_type="click", index=find(env, "Ask"))
    assert "Sure?" in texts(env) and "Form" not in texts(env)  # only the dialog is reachable
    act(env, action_type="click", x=540, y=300)  # outside the dialog
    assert "Sure?" not in texts(env)
    act(env, action_type="click", index=find(env, "More options"))
    act(env, action_type="navigate_back")
    assert "Ask" not in texts(env)
    act(env, action_type="click", index=find(env, "More options"))
    act(env, action_type="click", index=find(env, "Ask"))
    act(env, action_type="click", index=find(env, "Yes"))
    assert form.name == "confirmed" and "Sure?" not in texts(env)


def test_text_field_inside_a_dialog_gets_the_keyboard(env):
    form = open_form(env)
    act(env, action_type="click", index=find(env, "More options"))
    act(env, action_type="click", index=find(env, "Rename"))
    act(env, action_type="input_text", text="Zed", index=find(env, "New name"))
    assert form.name == "Zed"
    act(env, action_type="click", index=find(env, "New name"))
    act(env, action_type="click", index=find(env, "q"))  # a key tap must not close the dialog
    assert form.name == "Zedq" and "Rename" in texts(env)
    field = elements(env)[find(env, "Zedq")]
    keyboard_top = min(
        e.bbox_pixels.y_min
        for e in elements(env)
        if e.package_name == "com.google.android.inputmethod.latin"
    )
    assert field.bbox_pixels.y_max <= keyboard_top
    act(env, action_type="click", index=find(env, "OK"))
    assert "Rename" not in texts(env) and not any(e.is_focused for e in elements(env))


# ---- scroll and swipe ---------------------------------------------------------------------


def test_scroll_is_content_direction(env):
    act(env, action_type="open_app", app_name="Settings")
    assert "Network & internet" in texts(env) and "About emulated device" not in texts(env)
    act(env, action_type="scroll", direction="down")
    assert "Network & internet" not in texts(env)
    act(env, action_type="scroll", direction="down")
    assert "About emulated device" in texts(env)
    act(env, action_type="scroll", direction="up")
    act(env, action_type="scroll", direction="up")
    assert "Network & internet" in texts(env)
    act(env, action_type="scroll", direction="down", index=0)  # index 0 = whole screen (quirk)
    assert "Network & internet" not in texts(env)


def test_scroll_within_an_element(env):
    act(env, action_type="open_app", app_name="Settings")
    lst = next(i for i, e in enumerate(elements(env)) if e.is_scrollable)
    for _ in range(3):  # each drag moves half the list's height
        act(env, action_type="scroll", direction="down", index=lst)
    assert "About emulated device" in texts(env)
    with pytest.raises(ValueError):
        act(env, action_type="scroll", direction="down", index=999)
    with pytest.raises(ValueError):
        act(env, action_type="scroll")
    with pytest.raises(ValueError):
        act(env, action_type="swipe")


def test_swipe_is_finger_direction(env):
    act(env, action_type="open_app", app_name="Settings")
    act(env, action_type="swipe", direction="up")  # finger up: content below comes in
    assert "About emulated device" in texts(env)
    act(env, action_type="swipe", direction="down")
    act(env, action_type="swipe", direction="left")  # horizontal: lists do not move
    act(env, action_type="swipe", direction="right")
    assert "Network & internet" in texts(env)


def test_scroll_on_a_slider_follows_the_finger(env):
    act(env, action_type="open_app", app_name="Settings")
    act(env, action_type="click", index=find(env, "Display"))
    slider = next(
        i for i, e in enumerate(elements(env)) if (e.class_name or "").endswith("SeekBar")
    )
    act(env, action_type="scroll", direction="left", index=slider)  # finger ends at the right edge
    assert env.controller.get_setting("system", "screen_brightness") == "255"
    act(env, action_type="scroll", direction="right", index=slider)
    assert env.controller.get_setting("system", "screen_brightness") == "1"
    box = elements(env)[slider].bbox_pixels
    act(env, action_type="click", x=int(box.center[0]), y=int(box.center[1]))
    assert 120 <= int(env.controller.get_setting("system", "screen_brightness")) <= 136


# ---- device facts -------------------------------------------------------------------------


def test_controller_settings_sqlite_files_clipboard(env):
    c = env.controller
    c.put_setting("global", "wifi_on", "0")
    assert c.get_setting("global", "wifi_on") == "0" and c.get_setting("system", "nope") is None
    with pytest.raises(ValueError):
        c.get_setting("local", "x")
    db = "/data/data/com.example/databases/t.db"
    c.sqlite_execute(db, "CREATE TABLE t (a INTEGER, b TEXT); INSERT INTO t VALUES (1, 'x');")
    c.sqlite_execute(db, "INSERT INTO t VALUES (?, ?)", (2, "y"))
    assert c.sqlite_query(db, "SELECT * FROM t ORDER BY a") == [
        {"a": 1, "b": "x"},
        {"a": 2, "b": "y"},
    ]
    assert (c.root / "data/data/com.example/databases/t.db").is_file()
    c.write_text(f"{device.MARKOR_DATA}/a.md", "hello")
    assert (
        c.list_dir(device.MARKOR_DATA) == ["a.md"]
        and c.read_text(f"{device.MARKOR_DATA}/a.md") == "hello"
    )
    assert c.is_dir(device.MARKOR_DATA) and c.exists("/sdcard/Documents/Markor/a.md")
    c.remove(f"{device.MARKOR_DATA}/a.md")
    assert not c.exists(f"{device.MARKOR_DATA}/a.md") and c.list_dir("/nowhere") == []
    with pytest.raises(ValueError):
        c.read_file("/storage/../../etc/passwd")
    c.set_clipboard("copied")
    assert c.get_clipboard() == "copied"
    c.launch_app("clock")
    assert c.foreground_package() == "com.google.android.deskclock"
    with pytest.raises(ValueError):
        c.launch_app("nope")
    c.close_recents()
    assert c.foreground_activity() == device.HOME_ACTIVITY


def test_settings_screens_show_the_settings_table(env):
    env.controller.put_setting("global", "wifi_on", "0")
    act(env, action_type="open_app", app_name="Settings")
    act(env, action_type="click", index=find(env, "Network & internet"))
    act(env, action_type="click", index=find(env, "Internet"))
    assert "AndroidWifi" not in texts(env)
    env.controller.put_setting("global", "wifi_on", "1")  # a write between steps shows up
    assert "AndroidWifi" in texts(env)
    assert any(e.content_description == "Wifi signal full." for e in elements(env))


def test_close_removes_the_temp_dir():
    e = SimEnv(render=False)
    root = e.controller.root
    assert root.is_dir()
    e.close()
    assert not root.exists()


def test_same_seed_same_run():
    def run(seed: int):
        e = SimEnv(seed=seed, render=True)
        try:
            out = []
            for action in (
                JSONAction(action_type="open_app", app_name="Settings"),
                JSONAction(action_type="scroll", direction="down"),
                JSONAction(action_type="click", index=8),
            ):
                e.execute_action(action)
                s = e.get_state()
                out.append((s.ui_elements, s.pixels.tobytes()))
            return out
        finally:
            e.close()

    assert run(3) == run(3)
