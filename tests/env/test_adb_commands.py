"""Pure command building and output parsing for the adb environment."""

from __future__ import annotations

import base64
import datetime
import shlex

import pytest
from support.fake_adb.shell import split_commands

from android_world.env.adb import commands
from android_world.env.adb.adb_runner import UntypeableTextError
from android_world.env.representation_utils import BoundingBox


def _typed(text: str) -> str:
    """What the device would type for our commands: device-shell parse, then `input`'s %s rule."""
    typed = []
    for command in commands.input_text_commands(text):
        for _, argv in split_commands(command):
            if argv[:2] == ["input", "text"]:
                typed.append(argv[2].replace("%s", " "))
            elif argv == ["input", "keyevent", "KEYCODE_ENTER"]:
                typed.append("\n")
            elif argv == ["input", "keyevent", "KEYCODE_TAB"]:
                typed.append("\t")
            else:
                raise AssertionError(argv)
    return "".join(typed)


@pytest.mark.parametrize(
    "text",
    [
        "hello world",
        "a  b",
        " leading and trailing ",
        'it\'s "quoted" $HOME `cmd` (x) [y] {z} <a> | b ; c & d * ? ~ # ! \\ end',
        "100%s sure % s %%s %",
        "line one\nline two\tcol",
        "-n looks like a flag",
    ],
)
def test_input_text_types_exactly_the_text(text):
    assert _typed(text) == text


def test_input_text_sends_spaces_as_percent_s_and_quotes_for_the_shell():
    assert commands.input_text_commands("a b;c") == ["input text 'a%sb;c'"]


def test_non_ascii_text_is_a_clear_value_error():
    with pytest.raises(UntypeableTextError) as info:
        commands.input_text_commands("café")
    assert isinstance(info.value, ValueError)
    assert "ADBKeyboard" in str(info.value) and "é" in str(info.value)
    assert not commands.is_typeable("naïve")
    assert commands.is_typeable("plain\ttext\n")


def test_adb_keyboard_command_is_base64():
    command = commands.adb_keyboard_command("café ☕")
    argv = shlex.split(command)
    assert argv[:4] == ["am", "broadcast", "-a", "ADB_INPUT_B64"]
    assert base64.b64decode(argv[-1]).decode() == "café ☕"


def test_gesture_commands():
    assert commands.tap_command(10.4, 20.6) == "input tap 10 21"
    assert commands.long_press_command(5, 6) == "input swipe 5 6 5 6 1000"
    assert commands.double_tap_command(1, 2) == "input tap 1 2 && input tap 1 2"
    assert commands.swipe_command(1, 2, 3, 4, 500) == "input swipe 1 2 3 4 500"
    assert commands.keyevent_command("KEYCODE_HOME") == "input keyevent KEYCODE_HOME"


@pytest.mark.parametrize(
    ("direction", "expected"),
    [
        ("down", (540, 1200, 540, 0)),  # content down = finger up
        ("up", (540, 1200, 540, 2400)),
        ("right", (540, 1200, 0, 1200)),
        ("left", (540, 1200, 1080, 1200)),
    ],
)
def test_scroll_whole_screen_is_content_direction(direction, expected):
    assert commands.scroll_points(direction, (1080, 2400)) == expected


def test_scroll_in_an_element_is_clamped_to_the_screen():
    region = BoundingBox(-100, 1200, 400, 2600)
    assert commands.scroll_points("down", (1080, 2400), region) == (540, 1400, 540, 400)


@pytest.mark.parametrize(
    ("direction", "expected"),
    [
        ("down", (540, 0, 540, 2399)),
        ("up", (540, 2399, 540, 0)),
        ("left", (0, 1200, 1079, 1200)),  # upstream's quirk, kept as the sim keeps it
        ("right", (1079, 1200, 0, 1200)),
    ],
)
def test_swipe_follows_upstream(direction, expected):
    assert commands.swipe_points(direction, (1080, 2400)) == expected


def test_bad_directions():
    with pytest.raises(ValueError):
        commands.scroll_points("sideways", (10, 10))
    with pytest.raises(ValueError):
        commands.swipe_points("sideways", (10, 10))


def test_parse_wm_size():
    assert commands.parse_wm_size("Physical size: 1080x2400\n") == ((1080, 2400), None)
    assert commands.parse_wm_size("Physical size: 1080x2400\nOverride size: 720x1600\n") == (
        (1080, 2400),
        (720, 1600),
    )
    assert commands.parse_wm_size("error") == (None, None)


DUMPSYS_INPUT = """
  Viewports:
    Viewport INTERNAL: displayId=0, uniqueId=local:4619827259835644672, port=0, orientation=1, logicalFrame=[0, 0, 2400, 1080], physicalFrame=[0, 0, 2400, 1080], deviceSize=[1080, 2400], isActive=[true]
  Input Dispatcher State:
"""


def test_parse_input_viewport_and_orientation():
    assert commands.parse_input_viewport(DUMPSYS_INPUT) == (
        1,
        (0, 0, 2400, 1080),
        (0, 0, 2400, 1080),
    )
    assert commands.parse_orientation(DUMPSYS_INPUT) == 1
    assert commands.parse_orientation("    SurfaceOrientation: 3\n") == 3
    assert commands.parse_orientation("  mCurrentRotation=ROTATION_180\n") == 2
    assert commands.parse_orientation("nothing") is None


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (
            "  topResumedActivity=ActivityRecord{6e2c1f1 u0 com.android.settings/.Settings t8}\n",
            "com.android.settings/.Settings",
        ),
        (
            "    mResumedActivity: ActivityRecord{b2 u0 com.google.android.apps.nexuslauncher/"
            ".NexusLauncherActivity t1}\n",
            "com.google.android.apps.nexuslauncher/.NexusLauncherActivity",
        ),
        (
            "  mFocusedApp=ActivityRecord{9 u0 net.gsantner.markor/"
            "net.gsantner.markor.activity.MainActivity t3}",
            "net.gsantner.markor/net.gsantner.markor.activity.MainActivity",
        ),
        ("no activity here", None),
    ],
)
def test_parse_resumed_activity(output, expected):
    assert commands.parse_resumed_activity(output) == expected


def test_component():
    assert (
        commands.component("com.android.settings", ".Settings") == "com.android.settings/.Settings"
    )
    assert commands.component("a.b", "a.b.Main") == "a.b/a.b.Main"


def test_bind_params_inlines_literals_outside_quotes():
    sql = "SELECT * FROM t WHERE a = ? AND b = '?' AND c = \"?\" AND d IN (?, ?) -- ?\n AND e = ?"
    bound = commands.bind_params(sql, ("x'y", 3, None, 1.5))
    assert bound == (
        "SELECT * FROM t WHERE a = 'x''y' AND b = '?' AND c = \"?\" AND d IN (3, NULL) -- ?\n"
        " AND e = 1.5"
    )


def test_bind_params_counts_parameters():
    assert commands.bind_params("SELECT ?", (True,)) == "SELECT 1"
    assert (
        commands.bind_params("SELECT 'it''s ?', ?", (b"\x0a\xff",)) == "SELECT 'it''s ?', X'0aff'"
    )
    with pytest.raises(ValueError):
        commands.bind_params("SELECT ?, ?", (1,))
    with pytest.raises(ValueError):
        commands.bind_params("SELECT ?", (1, 2))
    assert commands.bind_params("SELECT '?'", ()) == "SELECT '?'"


def test_sqlite_command_survives_the_device_shell():
    sql = "INSERT INTO t VALUES ('it''s; $x && `y`', \"q\")"
    command = commands.sqlite_command("/data/data/p/databases/a b.db", sql, "json")
    ((_, argv),) = split_commands(command)
    assert argv == ["sqlite3", "-json", "/data/data/p/databases/a b.db", sql]
    assert "-header -quote" in commands.sqlite_command("/x.db", "SELECT 1", "quote")


def test_parse_sqlite_json():
    assert commands.parse_sqlite_json("") == []
    output = '[{"id":1,"name":"a\\nb","v":null,"f":1.5},\n{"id":2,"name":"c","v":"x","f":0}]\n'
    assert commands.parse_sqlite_json(output) == [
        {"id": 1, "name": "a\nb", "v": None, "f": 1.5},
        {"id": 2, "name": "c", "v": "x", "f": 0},
    ]
    assert commands.parse_sqlite_json('[{"a":1}]\n[{"b":2}]\n') == [{"a": 1}, {"b": 2}]


def test_parse_sqlite_quote_keeps_types():
    output = "'id','name','note','blob','ratio'\n1,'O''Brien, Jr.','two\nlines',X'00ff',-2.5e-3\n2,'',NULL,NULL,3.0\n"
    assert commands.parse_sqlite_quote(output) == [
        {
            "id": 1,
            "name": "O'Brien, Jr.",
            "note": "two\nlines",
            "blob": b"\x00\xff",
            "ratio": -0.0025,
        },
        {"id": 2, "name": "", "note": None, "blob": None, "ratio": 3.0},
    ]
    assert commands.parse_sqlite_quote("") == []


def test_parse_sqlite_version():
    assert commands.parse_sqlite_version("3.32.2 2020-06-04 12:58:43 abc") == (3, 32, 2)
    assert commands.parse_sqlite_version("sqlite3: not found") is None


def test_date_helpers():
    when = datetime.datetime(2023, 10, 15, 15, 34, 0, tzinfo=datetime.UTC)
    assert commands.android_date_arg(when) == "1015153423.00"
    eastern = when.astimezone(datetime.timezone(datetime.timedelta(hours=-4)))
    assert commands.android_date_arg(eastern) == "1015153423.00"
    assert commands.parse_epoch("1697384040\n") == when
    with pytest.raises(ValueError):
        commands.parse_epoch("date: bad")


def test_stat_and_broadcast_parsing():
    assert commands.parse_stat_type("directory\n") == "directory"
    assert commands.parse_stat_type("regular file\n") == "file"
    assert commands.parse_stat_type("regular empty file\n") == "file"
    assert commands.parse_stat_type("") is None
    output = (
        'Broadcasting: Intent { act=clipper.get }\nBroadcast completed: result=-1, data="a, b"\n'
    )
    assert commands.parse_broadcast_data(output) == (-1, "a, b")
    assert commands.parse_broadcast_data("Broadcast completed: result=0\n") == (0, None)
    assert commands.parse_broadcast_data("nothing") is None


def test_app_data_dir():
    assert commands.app_data_dir("/data/data/com.a.b/databases/x.db") == "/data/data/com.a.b"
    assert commands.app_data_dir("/data/user/0/com.a.b/files/f") == "/data/user/0/com.a.b"
    assert commands.app_data_dir("/data/data/com.a.b") is None
    assert commands.app_data_dir("/storage/emulated/0/Download/x") is None
    assert commands.is_uid_gid("10123:10123") and not commands.is_uid_gid("stat: error")
