"""AdbEnv against the fake adb executable: observations, upstream action semantics, errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.fake_adb import (
    FakeAdbServer,
    FakeDevice,
    in_process_runner,
    recording_device,
)

from android_world.env import interface, json_action
from android_world.env.adb import AdbEnv, AdbError, uiautomator
from android_world.env.adb.adb_runner import UntypeableTextError

FIXTURE = Path(__file__).parents[1] / "fixtures" / "adb" / "settings_home.xml"
NODES = uiautomator.parse_dump(FIXTURE.read_text(encoding="utf-8"))
SEARCH, RECYCLER, EDIT = 3, 4, 13  # element indices in the fixture


class Harness:
    """Runs AdbEnv on the fake device, in process (fast) or through the fake adb executable."""

    def __init__(self, fake: FakeDevice, server: FakeAdbServer | None = None):
        self.fake = fake
        self.server = server
        self.sleeps: list[float] = []

    @property
    def events(self):
        return self.fake.phone.events  # type: ignore[attr-defined]

    @property
    def calls(self) -> list[str]:
        return self.fake.adb_log

    def env(self, **config) -> AdbEnv:
        runner = None
        if self.server is not None:
            config = {"adb_path": self.server.adb_path, **config}
        else:
            serial = f"emulator-{config.get('console_port', 5554)}"
            runner = in_process_runner(self.fake, serial, config.get("timeout_sec", 30.0))
        return AdbEnv(config, runner=runner, input_pause_sec=0, sleep=self.sleeps.append)


@pytest.fixture
def harness():
    return Harness(recording_device(nodes=NODES))


@pytest.fixture
def process_harness():
    """The real subprocess path: the fake `adb` script on a temp path."""
    fake = recording_device(nodes=NODES)
    with FakeAdbServer(fake.handle) as server:
        yield Harness(fake, server)


def act(env: AdbEnv, **fields) -> None:
    env.execute_action(json_action.JSONAction(**fields))


def test_get_state_has_pixels_forest_and_elements(process_harness):
    state = process_harness.env().get_state()
    assert state.pixels.shape == (2400, 1080, 3) and state.pixels.dtype == np.uint8
    assert len(state.ui_elements) == len(NODES) == 14
    assert state.forest == NODES
    assert state.ui_elements[SEARCH].content_description == "Search settings"


def test_get_state_waits_for_a_stable_screen(harness, monkeypatch):
    monkeypatch.setattr(interface.time, "sleep", lambda _: None)
    env = harness.env()
    state = env.get_state(wait_to_stabilize=True)
    assert len(state.ui_elements) == 14
    dumps = [c for c in harness.calls if "uiautomator dump /dev/tty" in c]
    assert len(dumps) == 3  # three identical element lists in a row


def test_transient_uiautomator_failures_are_retried(harness):
    harness.fake.uiautomator_outputs = [
        "ERROR: null root node returned by UiTestAutomationBridge.\n",
        "ERROR: could not get idle state.\n",
    ]
    state = harness.env().get_state()
    assert len(state.ui_elements) == 14
    assert len(harness.sleeps) == 2


def test_persistent_uiautomator_failure_is_one_clear_error(harness):
    harness.fake.uiautomator_outputs = ["ERROR: could not get idle state.\n"] * 10
    with pytest.raises(AdbError) as info:
        harness.env(uiautomator_retries=3).get_state()
    message = str(info.value)
    assert "uiautomator dump failed on emulator-5554" in message and "idle state" in message
    assert "\n" not in message


def test_dump_falls_back_to_a_file_when_dev_tty_fails(harness):
    harness.fake.dev_tty_unsupported = True
    assert len(harness.env().get_state().ui_elements) == 14
    assert any("uiautomator dump /sdcard/window_dump.xml" in c for c in harness.fake.shell_log)


def test_screencap_failure_names_the_fix(harness):
    harness.fake.screencap_error = "Capturing screen failed: Permission denied"
    with pytest.raises(AdbError, match=r"screencap failed on emulator-5554 .*KEYCODE_WAKEUP"):
        harness.env().get_state()


def test_click_by_index_taps_the_centre_of_a_fresh_element_list(harness):
    env = harness.env()
    act(env, action_type="click", index=SEARCH)
    act(env, action_type="click", x=10, y=20)
    assert harness.events == [("tap", 995.0, 265.0), ("tap", 10.0, 20.0)]


@pytest.mark.parametrize("index", [14, -1, 99])
def test_bad_index_is_a_value_error(harness, index):
    with pytest.raises(ValueError, match="Invalid element index"):
        act(harness.env(), action_type="click", index=index)
    assert harness.events == []


def test_click_without_target_is_a_value_error(harness):
    with pytest.raises(ValueError):
        act(harness.env(), action_type="long_press")


def test_double_tap_and_long_press(harness):
    env = harness.env()
    act(env, action_type="double_tap", x=5, y=6)
    act(env, action_type="long_press", index=SEARCH)
    assert harness.events == [("tap", 5.0, 6.0), ("tap", 5.0, 6.0), ("long_press", 995.0, 265.0)]
    assert "input tap 5 6 && input tap 5 6" in harness.fake.shell_log  # one round trip


@pytest.mark.parametrize("through_process", [False, True])
def test_input_text_taps_clears_types_and_presses_enter(through_process, harness, request):
    if through_process:
        harness = request.getfixturevalue("process_harness")
    act(harness.env(), action_type="input_text", index=EDIT, text="it's 100% done", clear_text=True)
    assert harness.events == [
        ("tap", 540.0, 2250.0),
        ("keys", "KEYCODE_CTRL_LEFT", "KEYCODE_A"),
        ("key", "KEYCODE_DEL"),
        ("text", "it's 100% done"),
        ("key", "KEYCODE_ENTER"),
    ]


def test_clear_text_falls_back_without_keycombination(harness):
    harness.fake.keycombination_supported = False
    act(harness.env(), action_type="input_text", text="x", clear_text=True)
    assert harness.events[0] == ("key", "KEYCODE_MOVE_END")
    assert harness.events[1:101] == [("key", "KEYCODE_DEL")] * 100
    assert harness.events[-2:] == [("text", "x"), ("key", "KEYCODE_ENTER")]


def test_input_text_without_text_does_nothing(harness):
    act(harness.env(), action_type="input_text", index=EDIT)
    assert harness.events == []


def test_untypeable_text_is_a_clear_error_unless_adb_keyboard_is_active(harness):
    env = harness.env()
    with pytest.raises(UntypeableTextError, match="ADBKeyboard"):
        act(env, action_type="input_text", text="café")
    assert harness.events == []
    env.controller.put_setting("secure", "default_input_method", "com.android.adbkeyboard/.AdbIME")
    harness.fake.ime = "com.android.adbkeyboard/.AdbIME"
    act(env, action_type="input_text", text="café ☕")
    assert harness.events == [("text", "café ☕"), ("key", "KEYCODE_ENTER")]


def test_scroll_index_zero_or_none_is_the_whole_screen(harness):
    env = harness.env()
    act(env, action_type="scroll", direction="down")
    act(env, action_type="scroll", direction="down", index=0)
    act(env, action_type="scroll", direction="up", index=RECYCLER)
    assert harness.events == [
        ("swipe", 540.0, 1200.0, 540.0, 0.0, 300),
        ("swipe", 540.0, 1200.0, 540.0, 0.0, 300),
        ("swipe", 540.0, 1368.0, 540.0, 2337.0, 300),
    ]


def test_scroll_and_swipe_need_a_direction(harness):
    env = harness.env()
    with pytest.raises(ValueError):
        act(env, action_type="scroll")
    with pytest.raises(ValueError):
        act(env, action_type="swipe")
    with pytest.raises(ValueError, match="Invalid element index"):
        act(env, action_type="scroll", direction="down", index=40)


def test_swipe_is_finger_direction(harness):
    act(harness.env(), action_type="swipe", direction="up")
    assert harness.events == [("swipe", 540.0, 2399.0, 540.0, 0.0, 500)]


def test_keys(harness):
    env = harness.env()
    act(env, action_type="navigate_home")
    act(env, action_type="navigate_back")
    act(env, action_type="keyboard_enter")
    assert harness.events == [
        ("key", "KEYCODE_HOME"),
        ("key", "KEYCODE_BACK"),
        ("key", "KEYCODE_ENTER"),
    ]


def test_open_app(harness):
    env = harness.env()
    act(env, action_type="open_app", app_name="Simple Calendar")
    assert env.foreground_activity_name.startswith("com.simplemobiletools.calendar.pro/")
    harness.fake.packages.add("org.example.notes")
    act(env, action_type="open_app", app_name="org.example.notes")
    assert harness.events == [
        ("launch", "com.simplemobiletools.calendar.pro"),
        ("launch", "org.example.notes"),
    ]
    with pytest.raises(ValueError, match="Unknown app"):
        act(env, action_type="open_app", app_name="no such app")
    with pytest.raises(AdbError, match="is it installed"):
        act(env, action_type="open_app", app_name="org.missing.app")
    with pytest.raises(ValueError):
        act(env, action_type="open_app")


def test_answer_status_wait_and_reset(harness):
    env = harness.env()
    before = len(harness.calls)
    act(env, action_type="answer", text="42")
    act(env, action_type="status", goal_status="complete")
    assert env.interaction_cache == "42"
    assert len(harness.calls) == before  # neither touches the device
    act(env, action_type="wait")
    assert harness.sleeps == [1.0]
    env.reset(go_home=True)
    assert env.interaction_cache == ""
    assert harness.events == [("key", "KEYCODE_HOME")]


def test_geometry_portrait_and_landscape(harness):
    env = harness.env()
    assert env.device_screen_size == (1080, 2400)
    assert env.logical_screen_size == (1080, 2400)
    assert env.orientation == 0
    assert env.physical_frame_boundary == (0, 0, 1080, 2400)
    harness.fake.rotation = 1
    assert env.orientation == 1
    assert env.logical_screen_size == (2400, 1080)


def test_hide_automation_ui(harness):
    env = harness.env()
    env.controller.put_setting("system", "pointer_location", "1")
    env.hide_automation_ui()
    assert env.controller.get_setting("system", "pointer_location") == "0"


@pytest.mark.parametrize(
    ("state", "fragment"),
    [
        (None, "device emulator-5554 not found"),
        ("unauthorized", "accept the USB debugging prompt"),
        ("offline", "offline"),
        ("no permissions", "udev rule"),
    ],
)
def test_device_problems_at_start_name_the_fix(process_harness, state, fragment):
    process_harness.fake.state = state
    with pytest.raises(AdbError, match=fragment):
        process_harness.env()


def test_wrong_serial(harness):
    with pytest.raises(AdbError, match="emulator-5556 not found"):
        harness.env(console_port=5556)


def test_device_lost_mid_episode(harness):
    env = harness.env()
    harness.fake.state = "offline"
    with pytest.raises(AdbError, match="offline"):
        env.get_state()


def test_missing_adb(tmp_path):
    with pytest.raises(AdbError, match=r"adb not found at .*missing/adb.*env\.adb\.adb_path"):
        AdbEnv({"adb_path": str(tmp_path / "missing" / "adb")})


def test_timeout(process_harness):
    env = process_harness.env(timeout_sec=1)
    process_harness.fake.hang = {"screencap": 10.0}
    with pytest.raises(AdbError, match=r"`adb exec-out screencap -p` timed out after 1s"):
        env.screenshot()


def test_in_process_timeout(harness):
    env = harness.env(timeout_sec=2)
    harness.fake.hang = {"uiautomator": 5.0}
    with pytest.raises(AdbError, match="timed out after 2s"):
        env.get_state()
