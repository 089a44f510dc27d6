"""Audio Recorder (com.dimowner.audiorecorder): record, pause, stop, rename, delete.

The main screen has the big record button; while recording it shows the elapsed time with
Pause/Resume and Stop. Stop saves the recording at once as `Record-<n>.m4a` in the app's folder
(`device_facts.audio_recorder`), a real M4A file whose headers hold the duration: the time that
passed on the phone's clock while recording (`Phone.uptime_ms`, one agent step = 5 s). The newest
recording's name is shown with a Rename button; the Records list shows every file in the folder
with its length, and renames or deletes one from its menu. As in the real app, a rename keeps the
extension: the name typed becomes `<name>.m4a`.
"""

from __future__ import annotations

from android_world.env.device_facts import audio_recorder as facts
from android_world.env.device_facts import media
from android_world.env.sim import widgets as w
from android_world.env.sim.app import App, Screen
from android_world.env.sim.widgets import Node

RECORDS = facts.RECORDS_DIR
_MAIN_ACTIVITY = "com.dimowner.audiorecorder.app.main.MainActivity"


class AudioRecorderApp(App):
    package = facts.PACKAGE

    def __init__(self, phone) -> None:
        super().__init__(phone)
        self.recording_since: int | None = None  # uptime when the current take started
        self.recorded_ms = 0  # of the recording in progress, before its last pause
        self.paused = False
        self.last_record: str | None = None  # file name of the newest recording

    def install(self) -> None:
        self.device.make_dirs(RECORDS)

    def main_screen(self) -> Screen:
        return RecorderMain(self)

    def stop(self) -> None:
        """Closing the app abandons a recording in progress (nothing is written)."""
        super().stop()
        self.recording_since, self.recorded_ms, self.paused = None, 0, False

    # recording ----------------------------------------------------------------------------
    @property
    def recording(self) -> bool:
        return self.recording_since is not None or self.paused

    def elapsed_ms(self) -> int:
        running = 0
        if self.recording_since is not None:
            running = self.phone.uptime_ms - self.recording_since
        return self.recorded_ms + running

    def start_recording(self) -> None:
        self.recording_since, self.recorded_ms, self.paused = self.phone.uptime_ms, 0, False

    def pause_or_resume(self) -> None:
        if self.paused:
            self.recording_since, self.paused = self.phone.uptime_ms, False
        elif self.recording_since is not None:
            self.recorded_ms, self.recording_since, self.paused = self.elapsed_ms(), None, True

    def stop_recording(self) -> None:
        duration = self.elapsed_ms()
        self.recording_since, self.recorded_ms, self.paused = None, 0, False
        self.device.make_dirs(RECORDS)
        name = facts.next_record_name(self.device.list_dir(RECORDS))
        file_name = facts.record_file_name(name)
        self.device.write_file(f"{RECORDS}/{file_name}", media.m4a_bytes(duration))
        self.last_record = file_name

    # the folder ---------------------------------------------------------------------------
    def records(self) -> list[tuple[str, int]]:
        """(file name, duration ms) of every recording, newest name last."""
        found = []
        for name in self.device.list_dir(RECORDS):
            path = f"{RECORDS}/{name}"
            if self.device.is_dir(path):
                continue
            try:
                duration = media.read_media(self.device.read_file(path)).duration_ms
            except media.MediaError:
                duration = 0
            found.append((name, duration))
        return found

    def rename(self, old: str, new_name: str) -> str | None:
        """Rename a recording; an error message, or None when done."""
        new_name = new_name.strip()
        if not new_name or "/" in new_name:
            return "Name is not valid"
        target = facts.record_file_name(new_name)
        if target != old and self.device.exists(f"{RECORDS}/{target}"):
            return "A record with this name already exists"
        if target != old:
            self.device.rename(f"{RECORDS}/{old}", f"{RECORDS}/{target}")
        if self.last_record == old:
            self.last_record = target
        return None

    def delete(self, file_name: str) -> None:
        self.device.remove(f"{RECORDS}/{file_name}")
        if self.last_record == file_name:
            self.last_record = None


def display_name(file_name: str) -> str:
    return file_name.removesuffix(facts.EXTENSION)


class _RecorderScreen(Screen):
    """What both screens share: the rename dialog (the name without its extension)."""

    def __init__(self, app: AudioRecorderApp):
        super().__init__(app)
        self.app: AudioRecorderApp = app
        self.rename_to = ""
        self.renaming: str | None = None

    def open_rename(self, file_name: str) -> None:
        self.renaming, self.rename_to = file_name, display_name(file_name)
        self.show_dialog(self._rename_dialog)

    def _rename_dialog(self) -> Node:
        return w.dialog(
            "Rename record",
            body=[
                w.text_field(
                    self.rename_to,
                    lambda text: setattr(self, "rename_to", text),
                    hint="Name",
                    key="rename_field",
                )
            ],
            buttons=[("Cancel", self.dismiss), ("OK", self._rename)],
        )

    def _rename(self) -> None:
        if self.renaming is None:
            return
        error = self.app.rename(self.renaming, self.rename_to)
        if error:
            self.toast(error)
            return
        self.renaming = None
        self.dismiss()


class RecorderMain(_RecorderScreen):
    activity = _MAIN_ACTIVITY

    def build(self) -> Node:
        app = self.app
        shown = app.last_record if app.last_record and self._exists(app.last_record) else None
        if app.recording:
            status = "Paused" if app.paused else "Recording…"
            seconds = app.elapsed_ms()
        elif shown:
            status = display_name(shown)
            seconds = dict(app.records()).get(shown, 0)
        else:
            status, seconds = "Ready to record", 0
        header = w.row(
            w.label(status, size=48, flex=1, h=120, res_id="txt_name"),
            w.icon_button("Rename", "edit", lambda: self.open_rename(shown))
            if shown and not app.recording
            else None,
            h=150,
            pad=(48, 0, 24, 0),
            align="center",
        )
        timer = w.label(
            media.format_duration(seconds), size=96, center=True, h=200, res_id="txt_duration"
        )
        if app.recording:
            controls = w.row(
                w.spacer(flex=1),
                w.icon_button(
                    "Resume" if app.paused else "Pause",
                    "play" if app.paused else "pause",
                    app.pause_or_resume,
                ),
                w.spacer(w=80),
                w.icon_button("Stop", "stop", app.stop_recording, res_id="btn_record_stop"),
                w.spacer(flex=1),
                h=260,
                align="center",
            )
        else:
            controls = w.row(
                w.icon_button("Records", "menu", lambda: self.push(RecordsList(app))),
                w.spacer(flex=1),
                w.icon_button("Record", "sound", app.start_recording, res_id="btn_record"),
                w.spacer(flex=1),
                w.spacer(w=144),
                h=260,
                pad=(48, 0, 48, 0),
                align="center",
            )
        return w.column(
            w.app_bar("Audio Recorder"),
            header,
            w.spacer(flex=1),
            timer,
            w.spacer(flex=1),
            controls,
            flex=1,
        )

    def _exists(self, file_name: str) -> bool:
        return self.device.exists(f"{RECORDS}/{file_name}")


class RecordsList(_RecorderScreen):
    activity = "com.dimowner.audiorecorder.app.records.RecordsActivity"

    def build(self) -> Node:
        rows = [
            w.list_row(
                display_name(name),
                media.format_duration(duration),
                icon="sound",
                on_click=lambda n=name: self.toast(f"Playing {display_name(n)}"),
                trailing=w.icon_button("More options", "more", lambda n=name: self._menu(n)),
                key=f"record_{name}",
            )
            for name, duration in sorted(self.app.records(), key=lambda r: r[0].lower())
        ]
        return w.column(
            w.app_bar("Records", on_up=self.close),
            w.scroll_list("records", *(rows or [w.empty_state("No records")])),
            flex=1,
        )

    def _menu(self, file_name: str) -> None:
        self.show_menu(
            [
                ("Rename", lambda: self.open_rename(file_name)),
                ("Delete", lambda: self.show_dialog(lambda: self._confirm(file_name))),
            ]
        )

    def _confirm(self, file_name: str) -> Node:
        def delete() -> None:
            self.app.delete(file_name)
            self.dismiss()

        return w.dialog(
            "Delete record?",
            f"{display_name(file_name)} will be deleted.",
            buttons=[("Cancel", self.dismiss), ("Delete", delete)],
        )
