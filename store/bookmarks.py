"""Bookmarks, notes (kept apart from the bookmark flag) and what has been read: every write
of them is here.

A bookmark remembers the topic it was made from (``bookmarks.topic_id``, None when made
outside a topic), so an export files it where the reader found it. "Mark everything read"
is logged (``read_marks``: the entries it changed and the time it gave them), so
:func:`undo_mark_all_read` takes the last one back, across restarts."""

import sqlite3
import time
from collections.abc import Iterable
from typing import NamedTuple

import orjson

from .connection import Database
from .errors import StoreError
from .models import Bookmark, Record

READ_MARKS_KEPT = 20  # "mark everything read" that undo can take back, the latest kept

# A bookmark as the reader knows it: the flag's row with the entry's note (kept in its own
# table, so un-bookmarking never loses it).
_SELECT = (
    "SELECT b.entry_id, b.created_at, coalesce(n.note, '') "
    "FROM bookmarks b LEFT JOIN notes n ON n.entry_id = b.entry_id"
)


class Note(NamedTuple):
    """The user's note on an entry, bookmarked or not, and when it was last written."""

    entry_id: str
    note: str
    noted_at: float


def all_bookmarks(db: Database) -> list[Bookmark]:
    """Every bookmark, in the order they were made."""
    rows = db.query(f"{_SELECT} ORDER BY b.created_at, b.rowid")
    return [Bookmark(*r) for r in rows]


def one(db: Database, entry_id: str) -> Bookmark | None:
    rows = db.query(f"{_SELECT} WHERE b.entry_id = ?", (entry_id,))
    return Bookmark(*rows[0]) if rows else None


def ids(db: Database) -> set[str]:
    return {eid for (eid,) in db.query("SELECT entry_id FROM bookmarks")}


def note(db: Database, entry_id: str) -> str:
    """The entry's note ("" when it has none), whether it is bookmarked or not."""
    rows = db.query("SELECT note FROM notes WHERE entry_id = ?", (entry_id,))
    return rows[0][0] if rows else ""


def loose_notes(db: Database) -> list[Note]:
    """The notes on entries that are not bookmarked, oldest first."""
    rows = db.query(
        "SELECT entry_id, note, noted_at FROM notes "
        "WHERE entry_id NOT IN (SELECT entry_id FROM bookmarks) ORDER BY noted_at, rowid"
    )
    return [Note(*r) for r in rows]


def _known(conn: sqlite3.Connection, entry_id: str) -> None:
    """StoreError when the store holds no entry ``entry_id`` (another process deleted it,
    or the store was replaced): a clear message instead of a foreign-key failure."""
    if conn.execute("SELECT 1 FROM entries WHERE id = ?", (entry_id,)).fetchone() is None:
        raise StoreError(
            f"no entry {entry_id} in the store (deleted since, or the store was replaced); "
            "nothing was changed"
        )


def set_bookmark(
    db: Database,
    entry_id: str,
    on: bool,
    note: str | None = None,
    topic_id: int | None = None,
) -> None:
    """Bookmark the entry (keeping its time and topic; a ``note`` replaces the note;
    ``topic_id``: the topic it is bookmarked from) or remove the bookmark (its note stays
    with the entry)."""
    with db.write() as conn:
        if on:
            _known(conn, entry_id)
            conn.execute(
                "INSERT INTO bookmarks(entry_id, created_at, topic_id) VALUES (?, ?, ?) "
                "ON CONFLICT(entry_id) DO NOTHING",
                (entry_id, time.time(), topic_id),
            )
            if note is not None:
                put_note(conn, entry_id, note, time.time())
        else:
            conn.execute("DELETE FROM bookmarks WHERE entry_id = ?", (entry_id,))


def toggle(db: Database, entry_id: str, topic_id: int | None = None) -> bool:
    """Flip the bookmark in one transaction (the note is never touched); returns whether
    it is now bookmarked. ``topic_id``: the topic it is bookmarked from."""
    with db.write() as conn:
        gone = conn.execute("DELETE FROM bookmarks WHERE entry_id = ?", (entry_id,)).rowcount
        if gone:
            return False
        _known(conn, entry_id)
        conn.execute(
            "INSERT INTO bookmarks(entry_id, created_at, topic_id) VALUES (?, ?, ?)",
            (entry_id, time.time(), topic_id),
        )
        return True


def bookmark_topics(db: Database) -> dict[str, int]:
    """Bookmarked entry id -> the topic it was bookmarked from, where one was recorded."""
    return dict(db.query("SELECT entry_id, topic_id FROM bookmarks WHERE topic_id IS NOT NULL"))


class Marks(NamedTuple):
    """What deleting an entry would take with it that the user made: a bookmark, a note."""

    bookmarked: bool
    noted: bool

    def __bool__(self) -> bool:
        return self.bookmarked or self.noted


def marks(db: Database, entry_id: str) -> Marks:
    """Whether the entry is bookmarked and whether it has a note (one read)."""
    row = db.query(
        "SELECT EXISTS(SELECT 1 FROM bookmarks WHERE entry_id = ?1), "
        "EXISTS(SELECT 1 FROM notes WHERE entry_id = ?1)",
        (entry_id,),
    )[0]
    return Marks(bool(row[0]), bool(row[1]))


def put_note(conn: sqlite3.Connection, entry_id: str, text: str, when: float) -> bool:
    """Inside the caller's write transaction, make the entry's note ``text`` ("" removes
    it); False when it already was."""
    if not text:
        return conn.execute("DELETE FROM notes WHERE entry_id = ?", (entry_id,)).rowcount > 0
    cur = conn.execute(
        "INSERT INTO notes(entry_id, note, noted_at) VALUES (?, ?, ?) "
        "ON CONFLICT(entry_id) DO UPDATE SET note = excluded.note, noted_at = excluded.noted_at "
        "WHERE notes.note IS NOT excluded.note",
        (entry_id, text, when),
    )
    return cur.rowcount > 0


def put_exact(conn: sqlite3.Connection, bookmark: Bookmark) -> bool:
    """Inside the caller's write transaction, make the bookmark exactly ``bookmark`` (its
    time and note, as a restored backup says); False when it already was."""
    cur = conn.execute(
        "INSERT INTO bookmarks(entry_id, created_at) VALUES (?, ?) "
        "ON CONFLICT(entry_id) DO UPDATE SET created_at = excluded.created_at "
        "WHERE bookmarks.created_at IS NOT excluded.created_at",
        (bookmark.entry_id, bookmark.created_at),
    )
    changed = cur.rowcount > 0
    return put_note(conn, bookmark.entry_id, bookmark.note, bookmark.created_at) or changed


def read_ids(db: Database) -> set[str]:
    return {eid for (eid,) in db.query("SELECT entry_id FROM read_state")}


def set_read(db: Database, entry_id: str, read: bool = True) -> None:
    with db.write() as conn:
        if read:
            _known(conn, entry_id)
            conn.execute(
                "INSERT OR IGNORE INTO read_state(entry_id, read_at) VALUES (?, ?)",
                (entry_id, time.time()),
            )
        else:
            conn.execute("DELETE FROM read_state WHERE entry_id = ?", (entry_id,))


def set_read_many(db: Database, entry_ids: Iterable[str], read: bool = True) -> int:
    """Mark ``entry_ids`` read (or unread) in one transaction; returns how many changed
    (ids already so, or not stored, count for nothing)."""
    rows = [(eid,) for eid in dict.fromkeys(entry_ids)]
    with db.write() as conn:
        before = conn.total_changes
        if read:
            now = time.time()
            conn.executemany(
                "INSERT OR IGNORE INTO read_state(entry_id, read_at) "
                "SELECT id, ? FROM entries WHERE id = ?",
                [(now, eid) for (eid,) in rows],
            )
        else:
            conn.executemany("DELETE FROM read_state WHERE entry_id = ?", rows)
        return conn.total_changes - before


def mark_all_read(db: Database) -> int:
    """Mark every stored entry read in one transaction; returns how many were unread.
    Logged (when it changed anything) for :func:`undo_mark_all_read`."""
    now = time.time()
    with db.write() as conn:
        changed = [
            eid
            for (eid,) in conn.execute(
                "SELECT id FROM entries WHERE id NOT IN (SELECT entry_id FROM read_state) "
                "ORDER BY rowid"
            )
        ]
        if not changed:
            return 0
        conn.execute(
            "INSERT OR IGNORE INTO read_state(entry_id, read_at) SELECT id, ? FROM entries",
            (now,),
        )
        conn.execute(
            "INSERT INTO read_marks(made_at, entries) VALUES (?, ?)",
            (now, orjson.dumps(changed).decode()),
        )
        conn.execute(
            "DELETE FROM read_marks WHERE id <= (SELECT max(id) FROM read_marks) - ?",
            (READ_MARKS_KEPT,),
        )
        return len(changed)


class ReadMark(Record):
    """A logged "mark everything read": its id, when, and how many entries it changed."""

    __slots__ = ("count", "made_at", "mark_id")

    def __init__(self, mark_id: int, made_at: float, count: int) -> None:
        self.mark_id = mark_id
        self.made_at = made_at
        self.count = count


def last_read_mark(db: Database) -> ReadMark | None:
    """The "mark everything read" that :func:`undo_mark_all_read` would take back."""
    rows = db.query(
        "SELECT id, made_at, json_array_length(entries) FROM read_marks ORDER BY id DESC LIMIT 1"
    )
    return ReadMark(*rows[0]) if rows else None


def undo_mark_all_read(db: Database) -> int | None:
    """Take the last "mark everything read" back, in one transaction: the entries it
    marked are unread again, except those marked read again since (their time differs).
    Returns how many are unread again; None when there is nothing to undo."""
    with db.write() as conn:
        row = conn.execute(
            "SELECT id, made_at, entries FROM read_marks ORDER BY id DESC LIMIT 1"
        ).fetchone()
        if row is None:
            return None
        mark_id, made_at, blob = row
        rows = [(eid, made_at) for eid in orjson.loads(blob)]
        before = conn.total_changes
        conn.executemany("DELETE FROM read_state WHERE entry_id = ? AND read_at = ?", rows)
        undone = conn.total_changes - before
        conn.execute("DELETE FROM read_marks WHERE id = ?", (mark_id,))
        return undone


def filed_topics(db: Database) -> dict[str, int]:
    """Bookmarked entry id -> the topic an export files it under: the topic it was
    bookmarked from while the entry is still listed there (its own or an also topic),
    else its own topic; bookmarks of entries in no topic are absent."""
    return dict(
        db.query(
            "SELECT b.entry_id, CASE WHEN b.topic_id IS NOT NULL AND ("
            "EXISTS (SELECT 1 FROM topic_also x WHERE x.entry_id = b.entry_id "
            "AND x.topic_id = b.topic_id) OR a.topic_id = b.topic_id) "
            "THEN b.topic_id ELSE a.topic_id END AS filed "
            "FROM bookmarks b LEFT JOIN topic_assignments a ON a.entry_id = b.entry_id "
            "WHERE filed IS NOT NULL"
        )
    )
