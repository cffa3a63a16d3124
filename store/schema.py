"""The store's schema: its migrations, in order, and opening a connection onto it.

The schema version is ``PRAGMA user_version``; each migration runs in its own write
transaction and re-reads the version under the lock, so two processes opening an old
store at once migrate it once. Opening never writes to a file that is not a topiclens
store.
"""

from __future__ import annotations

import sqlite3
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from . import errors
from .errors import StoreError
from .migrations import (  # noqa: F401 (the shared fragments are imported from here too)
    MIGRATIONS,
    NEWEST_FIRST,
    TOPIC_LIST_FILL,
    TOPIC_LIST_ORDER,
    mute_match,
)

if TYPE_CHECKING:
    from .connection import Database

SCHEMA_VERSION = len(MIGRATIONS)
# meta key: bumped by every re-cluster's replace (here, so the reader reads it without
# importing the corrections' modules before its first frame)
GENERATION = "topics.generation"


def prepare(conn: sqlite3.Connection, path: Path) -> None:
    """Check what the file is, then set the connection up and migrate the schema.
    Nothing is written unless the file is a topiclens store (or empty)."""
    where = str(path)
    try:
        # one read transaction: a store another process is creating right now is
        # seen either empty or whole, never as tables without a schema version
        conn.execute("BEGIN")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        objects = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        conn.execute("COMMIT")
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{where}: written by a newer topiclens (schema {version}; this version "
                f"knows up to {SCHEMA_VERSION}). It was left untouched; upgrade topiclens "
                "to open it"
            )
        if version == 0 and objects:
            raise StoreError(
                f"{where}: an SQLite database of another program, not a topiclens store. "
                "It was left untouched; move it aside, or pass --data-dir to use another "
                "directory"
            )
        conn.execute(f"PRAGMA busy_timeout = {errors.BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys = ON")
        if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        migrate(conn, version)
    except BaseException:
        if conn.in_transaction:
            with suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise


def migrate(conn: sqlite3.Connection, version: int) -> None:
    for target in range(version + 1, SCHEMA_VERSION + 1):
        conn.execute("BEGIN IMMEDIATE")
        # re-read under the write lock: another process may have migrated already
        current = conn.execute("PRAGMA user_version").fetchone()[0]
        if current < target:
            migration = MIGRATIONS[target - 1]
            if callable(migration):
                migration(conn)
            else:
                for statement in statements(migration):
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {target}")
        conn.execute("COMMIT")
    if version < SCHEMA_VERSION:
        # the migrations' pages into the store, and the WAL emptied: a new store's tables
        # are otherwise written twice until the first checkpoint (half a MiB), an old
        # store's rewritten tables as large as themselves
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def statements(script: str) -> list[str]:
    """The statements of ``script``, split at the semicolons that end one (not those
    inside a trigger's body)."""
    out: list[str] = []
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n;"):
                out.append(pending)
            pending = ""
    return out


def get_meta(db: Database, key: str) -> str | None:
    rows = db.query("SELECT value FROM meta WHERE key = ?", (key,))
    return rows[0][0] if rows else None


def set_meta(db: Database, key: str, value: str) -> None:
    with db.write() as conn:
        conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )
