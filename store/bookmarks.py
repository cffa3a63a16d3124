"""Bookmarks, their notes, and what has been read: every write of them is here."""

from __future__ import annotations

import sqlite3
import time

from .connection import Database
from .models import Bookmark

_COLUMNS = "entry_id, created_at, note"


def all_bookmarks(db: Database) -> list[Bookmark]:
    """Every bookmark, in the order they were made."""
    rows = db.query(f"SELECT {_COLUMNS} FROM bookmarks ORDER BY created_at, rowid")
    return [Bookmark(*r) for r in rows]


def one(db: Database, entry_id: str) -> Bookmark | None:
    rows = db.query(f"SELECT {_COLUMNS} FROM bookmarks WHERE entry_id = ?", (entry_id,))
    return Bookmark(*rows[0]) if rows else None


def ids(db: Database) -> set[str]:
    return {eid for (eid,) in db.query("SELECT entry_id FROM bookmarks")}


def set_bookmark(db: Database, entry_id: str, on: bool, note: str | None = None) -> None:
    """Bookmark the entry (keeping its time; a ``note`` replaces the note) or remove it."""
    with db.write() as conn:
        if on:
            conn.execute(
                f"INSERT INTO bookmarks({_COLUMNS}) VALUES (?, ?, ?) "
                "ON CONFLICT(entry_id) DO UPDATE SET note = coalesce(?, note)",
                (entry_id, time.time(), note or "", note),
            )
        else:
            conn.execute("DELETE FROM bookmarks WHERE entry_id = ?", (entry_id,))


def toggle(db: Database, entry_id: str) -> bool:
    """Flip the bookmark in one transaction; returns whether it is now bookmarked."""
    with db.write() as conn:
        gone = conn.execute("DELETE FROM bookmarks WHERE entry_id = ?", (entry_id,)).rowcount
        if gone:
            return False
        put_exact(conn, Bookmark(entry_id, time.time(), ""))
        return True


def put_exact(conn: sqlite3.Connection, bookmark: Bookmark) -> bool:
    """Inside the caller's write transaction, make the bookmark exactly ``bookmark`` (its
    time and note, as a restored backup says); False when it already was."""
    cur = conn.execute(
        f"INSERT INTO bookmarks({_COLUMNS}) VALUES (?, ?, ?) "
        "ON CONFLICT(entry_id) DO UPDATE SET "
        "created_at = excluded.created_at, note = excluded.note "
        "WHERE bookmarks.created_at IS NOT excluded.created_at "
        "OR bookmarks.note IS NOT excluded.note",
        tuple(bookmark),
    )
    return cur.rowcount > 0


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
