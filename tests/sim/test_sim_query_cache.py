"""SimController keeps sqlite_query answers only while the phone's data is unchanged: every
write (sql, files, settings, clock) gives the next query a fresh read, and a kept answer is
handed out as new dicts, so a caller that edits its rows changes nothing else."""

from __future__ import annotations

import datetime

import pytest

from android_world.env.sim.controller import SimController

DB = "/data/data/com.example/databases/t.db"


@pytest.fixture
def controller():
    c = SimController()
    c.sqlite_execute(DB, "CREATE TABLE t (id INTEGER, name TEXT); INSERT INTO t VALUES (1, 'a');")
    yield c
    c.cleanup()


def reads(monkeypatch, controller) -> list[str]:
    seen: list[str] = []
    real = controller._query

    def counted(db_path, sql, params):
        seen.append(sql)
        return real(db_path, sql, params)

    monkeypatch.setattr(controller, "_query", counted)
    return seen


def test_unchanged_data_is_read_once(monkeypatch, controller):
    seen = reads(monkeypatch, controller)
    first = controller.sqlite_query(DB, "SELECT * FROM t WHERE id = ?", (1,))
    again = controller.sqlite_query(DB, "SELECT * FROM t WHERE id = ?", (1,))
    assert first == again == [{"id": 1, "name": "a"}]
    assert len(seen) == 1
    controller.sqlite_query(DB, "SELECT * FROM t WHERE id = ?", (2,))  # other parameters
    assert len(seen) == 2


@pytest.mark.parametrize(
    "write",
    [
        lambda c: c.sqlite_execute(DB, "UPDATE t SET name = ? WHERE id = ?", ("b", 1)),
        lambda c: c.write_file("/sdcard/Download/x.txt", b"x"),
        lambda c: c.remove("/sdcard/Download/none.txt"),
        lambda c: c.put_setting("global", "wifi_on", "1"),
        lambda c: c.set_clipboard("x"),
        lambda c: c.set_device_time(datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)),
    ],
)
def test_every_write_makes_the_next_query_read_again(monkeypatch, controller, write):
    seen = reads(monkeypatch, controller)
    controller.sqlite_query(DB, "SELECT * FROM t")
    write(controller)
    after = controller.sqlite_query(DB, "SELECT * FROM t")
    assert len(seen) == 2
    assert after == controller._query(DB, "SELECT * FROM t", ())


def test_an_update_is_seen(controller):
    assert controller.sqlite_query(DB, "SELECT name FROM t") == [{"name": "a"}]
    controller.sqlite_execute(DB, "UPDATE t SET name = 'b'", ())
    controller.sqlite_execute(DB, "UPDATE t SET name = ?", ("b",))
    assert controller.sqlite_query(DB, "SELECT name FROM t") == [{"name": "b"}]


def test_a_removed_database_is_missing_again(controller):
    controller.sqlite_query(DB, "SELECT * FROM t")
    controller.remove(DB)
    with pytest.raises(FileNotFoundError):
        controller.sqlite_query(DB, "SELECT * FROM t")


def test_callers_get_their_own_rows(controller):
    rows = controller.sqlite_query(DB, "SELECT * FROM t")
    rows[0]["name"] = "changed"
    rows.append({"id": 9})
    assert controller.sqlite_query(DB, "SELECT * FROM t") == [{"id": 1, "name": "a"}]


def test_named_parameters_are_read_every_time(monkeypatch, controller):
    seen = reads(monkeypatch, controller)
    a = controller.sqlite_query(DB, "SELECT * FROM t WHERE id = :i", {"i": 1})
    b = controller.sqlite_query(DB, "SELECT * FROM t WHERE id = :i", {"i": 2})
    assert (a, b, len(seen)) == ([{"id": 1, "name": "a"}], [], 2)
