"""Giving a store's free pages back to the disk.

SQLite keeps the pages a deleted row or a rewritten table leaves for later writes: the file
never shrinks by itself. :func:`compact` rewrites the store without them (SQLite's VACUUM),
a large store in pages of :data:`LARGE_PAGE` bytes: an entry row of about 1 KiB leaves a
sixth of each 4 KiB page unused, a twenty-fifth of a 16 KiB one. A small store keeps SQLite's
4 KiB pages, as each of its thirty-odd small tables and indexes takes at least a page. It
needs the store to itself (the journal mode is left for the rewrite) and, while it runs,
free disk for about twice the store."""

from __future__ import annotations

import os
import sqlite3

from .connection import Database
from .errors import BUSY_TIMEOUT_MS, StoreError, is_busy

SMALL_PAGE = 4096
LARGE_PAGE = 16384
LARGE_STORE = 64 << 20  # bytes: a store this big is rewritten in large pages


def compact(db: Database, page_size: int | None = None) -> tuple[int, int]:
    """Rewrite the store without its free pages, in pages of ``page_size`` bytes (None:
    chosen by the store's size); returns the file's size before and after, in bytes.
    Refused, with nothing changed, while another process has the store open."""
    before = os.path.getsize(db.path)
    if page_size is None:
        page_size = LARGE_PAGE if before >= LARGE_STORE else SMALL_PAGE

    def rewrite(conn: sqlite3.Connection) -> None:
        # another connection would make it wait its busy timeout, then fail: fail now
        conn.execute("PRAGMA busy_timeout = 0")
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            # SQLite stays in WAL, saying so, while another connection has the store open
            mode = conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0]
        except sqlite3.OperationalError as exc:
            if not is_busy(exc):
                raise
            mode = "wal"
        finally:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if mode.lower() != "delete":
            raise StoreError(
                f"{db.path}: another program has the store open (the reader, a refresh?); "
                "nothing was changed. Close it and run compact again"
            )
        try:
            conn.execute(f"PRAGMA page_size = {page_size}")
            conn.execute("VACUUM")
        finally:
            conn.execute("PRAGMA journal_mode = WAL")

    db.read(rewrite)
    return before, os.path.getsize(db.path)


def large_pages_for_import(db: Database, incoming: int) -> bool:
    """Before an import of ``incoming`` bytes of files: a store with no entry yet that the
    import will make large is rewritten in large pages now, while its tables are empty and
    that costs nothing (later it takes a ``compact``). Whether it was; a store another
    process has open is left as it is."""
    if incoming < LARGE_STORE or db.query("PRAGMA page_size")[0][0] >= LARGE_PAGE:
        return False
    if db.query("SELECT 1 FROM entries LIMIT 1"):
        return False
    try:
        compact(db, LARGE_PAGE)
    except StoreError:  # open elsewhere: the import goes ahead in small pages
        return False
    return True
