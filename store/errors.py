"""SQLite errors turned into advice: a :class:`StoreError` says what went wrong with the
store's file or disk and what to do about it."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

BUSY_TIMEOUT_MS = 30_000
SQLITE_MAGIC = b"SQLite format 3\x00"
# How long to keep retrying a lock that SQLite reports busy without waiting its timeout
# (a connection in recovery, a journal-mode switch on a fresh file).
RETRY_SECONDS = BUSY_TIMEOUT_MS / 1000


class StoreError(Exception):
    """The store cannot be used as it is; the message says what to do."""


def _read_only_dir(directory: Path) -> bool:
    return directory.is_dir() and not os.access(directory, os.W_OK)


def _disk_nearly_full(directory: Path) -> bool:
    try:
        return shutil.disk_usage(directory).free < 1 << 20
    except OSError:
        return False


def explain(exc: sqlite3.Error, path: Path) -> StoreError | None:
    """A :class:`StoreError` saying what went wrong with the store at ``path`` and what to
    do, for the errors that come from the file or the disk rather than from the code
    (a full disk, a read-only place, a damaged file, a lock held too long); None for the
    others, which are bugs and must not be dressed up as advice."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    detail = str(exc)
    where, folder = str(path), path.parent
    if name.startswith("SQLITE_FULL") or (
        name.startswith("SQLITE_IOERR") and _disk_nearly_full(folder)
    ):
        message = (
            f"the disk holding it is full ({detail}). Nothing was half-written: the write "
            "that failed was undone, and what was saved before it (earlier files of an "
            "import included) is kept and intact. Free some space on the disk "
            f"of {folder} (or pass --data-dir on another disk) and try again"
        )
    elif name.startswith("SQLITE_READONLY") or (
        name.startswith(("SQLITE_CANTOPEN", "SQLITE_IOERR")) and _read_only_dir(folder)
    ):
        message = (
            f"the store is read-only ({detail}); topiclens writes beside it even to read "
            f"(its -wal and -shm files). Nothing was changed. Make {folder} writable, or "
            "copy the store somewhere writable and pass that directory with --data-dir"
        )
    elif name.startswith("SQLITE_CORRUPT") or (
        name.startswith("SQLITE_NOTADB") and has_sqlite_header(path)
    ):
        message = (
            f"the store is damaged ({detail}). It was left untouched. Move it aside (keep "
            f"it: `sqlite3 {where} .recover` may save most of it), then restore your backup "
            "with `topiclens import backup.json` into a fresh store"
        )
    elif name.startswith("SQLITE_NOTADB"):
        message = (
            f"not a topiclens store ({detail}). It was left untouched; move it aside to "
            "start a fresh store, or pass --data-dir to use another one"
        )
    elif name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        message = (
            f"another process kept the store locked for more than {RETRY_SECONDS:.0f} s "
            f"({detail}). Nothing was changed. Wait for the other topiclens to finish an "
            "import or a re-cluster, or close it, and try again"
        )
    elif name.startswith(("SQLITE_CANTOPEN", "SQLITE_IOERR")):
        message = (
            f"cannot read or write the store ({detail}). Check that {folder} still exists "
            "and its disk is mounted and healthy, then try again"
        )
    else:
        return None
    error = StoreError(f"{where}: {message}")
    error.__cause__ = exc
    return error


def has_sqlite_header(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def is_busy(exc: sqlite3.Error) -> bool:
    name = getattr(exc, "sqlite_errorname", "") or ""
    return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in str(exc)
