"""Bookmarks, notes (kept apart from the bookmark flag) and what has been read: every write
of them is here."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable
from typing import NamedTuple

from .connection import Database
from .models import Bookmark

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


def set_bookmark(db: Database, entry_id: str, on: bool, note: str | None = None) -> None:
    """Bookmark the entry (keeping its time; a ``note`` replaces the note) or remove the
    bookmark (its note stays with the entry)."""
    with db.write() as conn:
        if on:
            conn.execute(
                "INSERT INTO bookmarks(entry_id, created_at) VALUES (?, ?) "
                "ON CONFLICT(entry_id) DO NOTHING",
                (entry_id, time.time()),
            )
            if note is not None:
                put_note(conn, entry_id, note, time.time())
        else:
            conn.execute("DELETE FROM bookmarks WHERE entry_id = ?", (entry_id,))


def toggle(db: Database, entry_id: str) -> bool:
    """Flip the bookmark in one transaction (the note is never touched); returns whether
    it is now bookmarked."""
    with db.write() as conn:
        gone = conn.execute("DELETE FROM bookmarks WHERE entry_id = ?", (entry_id,)).rowcount
        if gone:
            return False
        conn.execute(
            "INSERT INTO bookmarks(entry_id, created_at) VALUES (?, ?)", (entry_id, time.time())
        )
        return True


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
    """Mark every stored entry read in one transaction; returns how many were unread."""
    with db.write() as conn:
        cur = conn.execute(
            "INSERT OR IGNORE INTO read_state(entry_id, read_at) SELECT id, ? FROM entries",
            (time.time(),),
        )
        return cur.rowcount
