"""Where each entry came from: every file's path once, in ``origin_files``, and each entry
naming it by number (``entries.origin_id``), where every row repeated the whole path
(49 MiB at 1,000,000 entries imported from one file). A path's row is never deleted: a
deleted entry in the trash still names it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

import orjson

# an entry's origin_file, as a column of a query on ``entries`` ("" when it names none)
ORIGIN_FILE = "coalesce((SELECT o.path FROM origin_files o WHERE o.id = entries.origin_id), '')"
# the origin_id of a path already in ``origin_files`` (:func:`add_paths`), as a value
ORIGIN_ID = "(SELECT id FROM origin_files WHERE path = ?)"


def add_paths(conn: sqlite3.Connection, paths: Iterable[str]) -> None:
    """Number the paths not numbered yet, inside the caller's write transaction."""
    conn.executemany(
        "INSERT OR IGNORE INTO origin_files(path) VALUES (?)", [(p,) for p in set(paths)]
    )


def number_origin_files(conn: sqlite3.Connection) -> None:
    """The migration: each entry's path moves to ``origin_files``, numbered in the order of
    its first entry, and the entries in the trash name theirs by number too."""
    conn.execute("CREATE TABLE origin_files (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE)")
    conn.execute(
        "INSERT INTO origin_files(path) SELECT origin_file FROM entries "
        "GROUP BY origin_file ORDER BY min(rowid)"
    )
    conn.execute("ALTER TABLE entries ADD COLUMN origin_id INTEGER")
    conn.execute(f"UPDATE entries SET origin_id = {ORIGIN_ID.replace('?', 'origin_file')}")
    conn.execute("ALTER TABLE entries DROP COLUMN origin_file")
    for trash_id, rows in conn.execute("SELECT id, rows FROM trash").fetchall():
        doc = orjson.loads(rows)
        entry = doc["entry"]
        if "origin_file" not in entry["columns"]:
            continue
        at = entry["columns"].index("origin_file")
        add_paths(conn, [row[at] for row in entry["rows"]])
        for row in entry["rows"]:
            (row[at],) = conn.execute(f"SELECT {ORIGIN_ID}", (row[at],)).fetchone()
        entry["columns"][at] = "origin_id"
        conn.execute(
            "UPDATE trash SET rows = ? WHERE id = ?", (orjson.dumps(doc).decode(), trash_id)
        )
