"""AdbDeviceController against the fake device: every device fact, root rules, clear errors."""

from __future__ import annotations

import datetime

import pytest
from support.fake_adb import FakeDevice, in_process_runner, recording_device

from android_world.env import device
from android_world.env.adb import AdbDeviceController, AdbError

DB = "/data/data/com.simplemobiletools.calendar.pro/databases/events.db"


def make(**knobs) -> tuple[AdbDeviceController, FakeDevice]:
    auto_root = knobs.pop("auto_root", True)
    fake = recording_device(**knobs)
    return AdbDeviceController(in_process_runner(fake), auto_root=auto_root), fake


def test_settings_round_trip_and_null():
    controller, fake = make()
    controller.put_setting("global", "airplane_mode_on", "1")
    assert controller.get_setting("global", "airplane_mode_on") == "1"
    assert fake.phone.controller.get_setting("global", "airplane_mode_on") == "1"
    assert controller.get_setting("system", "never_set") is None
    controller.put_setting("system", "odd value", "a b; c")
    assert controller.get_setting("system", "odd value") == "a b; c"


@pytest.mark.parametrize("version", ["3.39.2", "3.32.2"])  # -json, and -quote on older sqlite
def test_sqlite_round_trip_with_types_and_quoting(version):
    controller, fake = make(sqlite_version=version)
    controller.sqlite_execute(
        DB,
        "CREATE TABLE events (id INTEGER PRIMARY KEY, title TEXT, start_ts INTEGER, "
        "note TEXT, ratio REAL); "
        "INSERT INTO events (title, start_ts, note, ratio) VALUES ('Team; sync', 1697384040, NULL, 0.5);",
    )
    controller.sqlite_execute(
        DB,
        "INSERT INTO events (title, start_ts, note, ratio) VALUES (?, ?, ?, ?)",
        ('Dentist\'s "check" $HOME, `x`', 1697470440, "two\nlines", 2.0),
    )
    rows = controller.sqlite_query(DB, "SELECT * FROM events WHERE start_ts >= ? ORDER BY id", (0,))
    assert rows == [
        {"id": 1, "title": "Team; sync", "start_ts": 1697384040, "note": None, "ratio": 0.5},
        {
            "id": 2,
            "title": 'Dentist\'s "check" $HOME, `x`',
            "start_ts": 1697470440,
            "note": "two\nlines",
            "ratio": 2.0,
        },
    ]
    assert controller.sqlite_query(DB, "SELECT * FROM events WHERE id = ?", (99,)) == []
    mode_flag = "-json" if version == "3.39.2" else "-quote"
    assert any(mode_flag in line for line in fake.shell_log if line.startswith("sqlite3 "))


def test_sqlite_error_is_one_line():
    controller, _ = make()
    controller.sqlite_execute(DB, "CREATE TABLE t (a INTEGER);")
    with pytest.raises(AdbError, match=r"sqlite3 on .*events\.db failed: .*no such table"):
        controller.sqlite_query(DB, "SELECT * FROM missing")


def test_sqlite_without_root_names_adb_root():
    controller, _ = make(root=False, root_allowed=False)
    with pytest.raises(AdbError) as info:
        controller.sqlite_query(DB, "SELECT 1")
    message = str(info.value)
    assert "sqlite3 on app databases needs root on emulator-5554" in message
    assert "`adb root`" in message and "without Google Play" in message


def test_auto_root_runs_adb_root_once():
    controller, fake = make(root=False, root_allowed=True)
    controller.sqlite_execute(DB, "CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (7);")
    assert controller.sqlite_query(DB, "SELECT a FROM t") == [{"a": 7}]
    assert fake.adb_log.count("-s emulator-5554 root") == 1


def test_no_auto_root_means_a_clear_error():
    controller, fake = make(root=False, root_allowed=True, auto_root=False)
    with pytest.raises(AdbError, match="needs root"):
        controller.sqlite_query(DB, "SELECT 1")
    assert not any(line.endswith(" root") for line in fake.adb_log)


def test_missing_sqlite_binary():
    controller, _ = make(sqlite_version=None)
    with pytest.raises(AdbError, match="sqlite3 is not available on emulator-5554"):
        controller.sqlite_query(DB, "SELECT 1")


def test_files():
    controller, _ = make()
    path = f"{device.DOWNLOAD_DATA}/notes dir/it's a file.txt"
    controller.write_file(path, b"\x00binary\r\n\xff")
    assert controller.read_file(path) == b"\x00binary\r\n\xff"
    assert controller.list_dir(f"{device.DOWNLOAD_DATA}/notes dir") == ["it's a file.txt"]
    assert controller.exists(path) and not controller.is_dir(path)
    assert controller.is_dir(f"{device.DOWNLOAD_DATA}/notes dir")
    controller.write_text(f"{device.MARKOR_DATA}/a.md", "héllo")
    assert controller.read_text("/sdcard/Documents/Markor/a.md") == "héllo"
    controller.make_dirs(f"{device.DCIM_DATA}/x/y")
    assert controller.is_dir(f"{device.DCIM_DATA}/x/y")
    controller.remove(f"{device.DOWNLOAD_DATA}/notes dir")
    assert not controller.exists(path)
    controller.remove(f"{device.DOWNLOAD_DATA}/never existed")  # not an error
    assert controller.list_dir("/storage/emulated/0/nowhere") == []
    with pytest.raises(FileNotFoundError):
        controller.read_file(f"{device.DOWNLOAD_DATA}/missing.txt")


def test_pull_and_push(tmp_path):
    controller, _ = make()
    local = tmp_path / "in.bin"
    local.write_bytes(b"abc")
    controller.push(str(local), f"{device.MUSIC_DATA}/in.bin")
    controller.pull(f"{device.MUSIC_DATA}/in.bin", str(tmp_path / "out.bin"))
    assert (tmp_path / "out.bin").read_bytes() == b"abc"


def test_data_paths_need_root():
    controller, _ = make(root=False, root_allowed=False)
    with pytest.raises(AdbError, match=r"access to /data/data/x needs root"):
        controller.list_dir("/data/data/x")
    controller.write_text(f"{device.DOWNLOAD_DATA}/ok.txt", "fine without root")


def test_device_time_is_frozen_with_upstream_format():
    controller, fake = make()
    controller.set_device_time(device.FROZEN_DEVICE_TIME)
    assert controller.device_time() == device.FROZEN_DEVICE_TIME
    assert "date -u 1015153423.00" in fake.shell_log
    assert controller.get_setting("global", "auto_time") == "0"
    assert controller.get_setting("system", "time_12_24") == "24"
    later = datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
    controller.set_device_time(later)
    assert controller.device_time() == later


def test_setting_time_without_root():
    controller, _ = make(root=False, root_allowed=False)
    with pytest.raises(AdbError, match="setting the device time needs root"):
        controller.set_device_time(device.FROZEN_DEVICE_TIME)


def test_clipboard_needs_clipper():
    controller, fake = make()
    with pytest.raises(AdbError, match=r"Clipper app \(ca\.zgrs\.clipper\).*adb install"):
        controller.get_clipboard()
    fake.packages.add("ca.zgrs.clipper")
    controller.set_clipboard("copied text, with comma")
    assert fake.phone.controller.get_clipboard() == "copied text, with comma"
    assert controller.get_clipboard() == "copied text, with comma"


def test_apps():
    controller, fake = make()
    assert controller.foreground_activity() == device.HOME_ACTIVITY
    controller.launch_app("contacts")
    assert controller.foreground_package() == "com.google.android.contacts"
    assert controller.foreground_activity() == (
        "com.google.android.contacts/com.android.contacts.activities.PeopleActivity"
    )
    with pytest.raises(ValueError, match="Unknown app"):
        controller.launch_app("definitely not an app")
    controller.close_recents()
    stopped = [e[1] for e in fake.phone.events if e[0] == "force_stop"]
    assert stopped == [app.package for app in device.APPS]
    assert fake.phone.events[-1] == ("key", "KEYCODE_HOME")
    assert controller.foreground_activity() == device.HOME_ACTIVITY


def test_launch_falls_back_to_monkey_when_the_activity_is_wrong():
    controller, fake = make()
    fake.packages.discard("com.android.camera2")
    with pytest.raises(AdbError, match=r"could not launch com\.android\.camera2"):
        controller.launch_app("camera")
    assert any(line.startswith("monkey -p com.android.camera2") for line in fake.shell_log)


def test_files_written_as_root_in_app_data_go_back_to_the_app():
    controller, fake = make()
    controller.sqlite_execute(DB, "CREATE TABLE t (a INTEGER);")
    controller.write_file("/data/data/net.gsantner.markor/files/x.txt", b"x")
    databases = "/data/data/com.simplemobiletools.calendar.pro/databases"
    assert f"chown -R 10123:10123 {databases} ; restorecon -R {databases}" in fake.shell_log
    files = "/data/data/net.gsantner.markor/files"
    assert f"chown -R 10123:10123 {files} ; restorecon -R {files}" in fake.shell_log
    controller.write_text(f"{device.DOWNLOAD_DATA}/y.txt", "y")
    assert not any(device.DOWNLOAD_DATA in line for line in fake.shell_log if "chown" in line)
