"""Tasks (org.tasks, Tasks.org): where to-dos live, and the list's row height.

The database is upstream's `/data/data/org.tasks/databases/database` with the columns upstream
reads and writes (`importance` 0 = high .. 3 = none; `dueDate`, `hideUntil`, `completed` in epoch
milliseconds, 0 meaning unset). `ROW_H` is the height of one task row in the list on the
simulated Pixel 6 (two lines: title and due date); a reference solution tells the list's end
by the blank space below the last row.
"""

from __future__ import annotations

PACKAGE = "org.tasks"
DB = f"/data/data/{PACKAGE}/databases/database"
TABLE = "tasks"
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS tasks ("
    "_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, title TEXT, "
    "importance INTEGER NOT NULL DEFAULT 2, dueDate INTEGER NOT NULL DEFAULT 0, "
    "hideUntil INTEGER NOT NULL DEFAULT 0, created INTEGER NOT NULL DEFAULT 0, "
    "modified INTEGER NOT NULL DEFAULT 0, completed INTEGER NOT NULL DEFAULT 0, "
    "deleted INTEGER NOT NULL DEFAULT 0, notes TEXT, "
    "estimatedSeconds INTEGER NOT NULL DEFAULT 0, elapsedSeconds INTEGER NOT NULL DEFAULT 0, "
    "timerStart INTEGER NOT NULL DEFAULT 0, notificationFlags INTEGER NOT NULL DEFAULT 0, "
    "lastNotified INTEGER NOT NULL DEFAULT 0, recurrence TEXT, "
    "repeat_from INTEGER NOT NULL DEFAULT 0, calendarUri TEXT, remoteId TEXT, "
    "collapsed INTEGER NOT NULL DEFAULT 0, parent INTEGER NOT NULL DEFAULT 0, "
    '"order" INTEGER, read_only INTEGER NOT NULL DEFAULT 0)'
)
ROW_H = 200  # one two-line row of the task list, in pixels (Pixel 6 sim)
