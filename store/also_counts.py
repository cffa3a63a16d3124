"""Each topic's count of its also rows (``topics.also_size``; NULL: not known), so the
reader has a topic's length without counting its rows (store/pages.py).

Triggers on ``topic_also_list`` keep the counts on every path an also row is written or
deleted by, cascades too. A re-cluster rewrites every also row: it drops them and sets the
counts with :data:`ALSO_SIZES` in one statement (row by row they would cost seconds at a
million entries)."""

from __future__ import annotations

import sqlite3

ALSO_SIZE_TRIGGERS: dict[str, str] = {
    "topic_also_counted": "CREATE TRIGGER IF NOT EXISTS topic_also_counted AFTER INSERT ON "
    "topic_also_list BEGIN UPDATE topics SET also_size = also_size + 1 "
    "WHERE id = new.topic_id; END",
    "topic_also_uncounted": "CREATE TRIGGER IF NOT EXISTS topic_also_uncounted AFTER DELETE "
    "ON topic_also_list BEGIN UPDATE topics SET also_size = also_size - 1 "
    "WHERE id = old.topic_id; END",
    "topic_also_recounted": "CREATE TRIGGER IF NOT EXISTS topic_also_recounted AFTER UPDATE "
    "OF topic_id ON topic_also_list BEGIN "
    "UPDATE topics SET also_size = also_size - 1 WHERE id = old.topic_id; "
    "UPDATE topics SET also_size = also_size + 1 WHERE id = new.topic_id; END",
}
ALSO_SIZES = (
    "UPDATE topics SET also_size = "
    "(SELECT count(*) FROM topic_also_list l WHERE l.topic_id = topics.id)"
)


def count_also_rows(conn: sqlite3.Connection) -> None:
    """The migration (inside its transaction): the column, unless a store has it, each
    topic's count, and the triggers."""
    if "also_size" not in {row[1] for row in conn.execute("PRAGMA table_info(topics)")}:
        conn.execute("ALTER TABLE topics ADD COLUMN also_size INTEGER")
    conn.execute(ALSO_SIZES)
    for sql in ALSO_SIZE_TRIGGERS.values():
        conn.execute(sql)
