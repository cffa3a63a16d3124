"""One connection to a store: opened safely, shared between threads under a lock,
retried while another process holds the store, and its errors turned into advice.

Every module of the store reads through :meth:`Database.query` and writes inside
:meth:`Database.write`; :class:`topiclens.store.Store` is a Database.

A store file replaced under a running process (``mv other.db topiclens.db``) is found
before every write by the file's identity (device and inode): the old handle is closed
(never written through: that corrupts the new file through the shared -wal), the new
file opened, and the write refused with :class:`StoreReplaced`, so the caller can reload
and try again."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Self, TypeVar

from . import errors
from .errors import StoreError, explain
from .schema import prepare

_T = TypeVar("_T")

STORE_FILENAME = "topiclens.db"


class StoreReplaced(StoreError):
    """The store's file was replaced (or removed) since it was opened: nothing was
    written; the store now reads the file at its path, so reload and try again."""


def _identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file at ``path``; None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


class Database:
    """A topiclens store's connection. Safe to share between threads (one lock around the
    connection) and between processes (WAL, busy timeout, immediate write transactions)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.lock = threading.RLock()
        self._conn = self._connect()
        self._identity = _identity(self.path)
        self._reopened = 0  # times the file was found replaced and opened again
        self._before_reopen: list[Callable[[], None]] = []

    @classmethod
    def open_dir(cls, data_dir: str | Path) -> Self:
        """The store in ``data_dir`` (created if need be), of the class it is called on."""
        data_dir = Path(data_dir)
        if data_dir.exists() and not data_dir.is_dir():
            raise StoreError(f"{data_dir}: the data directory is a file; pass another --data-dir")
        try:
            data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"{data_dir}: cannot create the data directory ({exc.strerror}); "
                "pass a writable --data-dir or set TOPICLENS_HOME"
            ) from exc
        return cls(data_dir / STORE_FILENAME)

    def _connect(self) -> sqlite3.Connection:
        where = str(self.path)
        if self.path.exists() and self.path.is_dir():
            raise StoreError(f"{where}: is a directory, not a topiclens store")
        try:
            conn = sqlite3.connect(
                where,
                timeout=errors.BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.Error as exc:
            raise (explain(exc, self.path) or StoreError(f"{where}: cannot open ({exc})")) from exc
        try:
            self.retry(lambda: prepare(conn, self.path))
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise StoreError(f"{where}: cannot use the store ({exc})") from exc
        except BaseException:
            conn.close()
            raise
        return conn

    def retry(self, action: Callable[[], _T]) -> _T:
        """Run ``action`` (which must be safe to run again), retrying while SQLite reports
        the store busy without having waited its busy timeout; turn errors that come from
        the file or the disk into a :class:`StoreError` that says what to do."""
        deadline = time.monotonic() + errors.RETRY_SECONDS
        delay = 0.005
        while True:
            try:
                return action()
            except sqlite3.Error as exc:
                if errors.is_busy(exc) and time.monotonic() < deadline:
                    time.sleep(delay)
                    delay = min(delay * 2, 0.25)
                    continue
                error = explain(exc, self.path)
                if error is None:
                    raise
                raise error from exc

    def close(self) -> None:
        with self.lock:
            self._conn.close()

    def replaced(self) -> bool:
        """Whether the file at the store's path is no longer the one open (replaced, moved
        or deleted); :meth:`check_file` acts on it."""
        with self.lock:
            return _identity(self.path) != self._identity

    def before_reopen(self, close: Callable[[], None]) -> None:
        """Have :meth:`check_file` call ``close`` when it finds the file replaced, before
        it closes the old handle and opens the new file: the caller's other connections to
        this path close there (one left open goes on reading the old file), so no handle
        on the old file outlives the new file's opening."""
        self._before_reopen.append(close)

    def check_file(self) -> None:
        """Make sure the connection is onto the file at the store's path (called before
        every write). When the file was replaced, close the old handle, open the new file
        and raise :class:`StoreReplaced`; when it is gone, raise it without opening."""
        with self.lock:
            now = _identity(self.path)
            if now == self._identity:
                return
            where = str(self.path)
            if now is None:
                raise StoreReplaced(
                    f"{where}: the store file was moved or deleted since topiclens opened it. "
                    "Nothing was written (it would be lost); put the file back, or restart "
                    "topiclens to start a fresh store"
                )
            for close in self._before_reopen:
                close()
            # the -wal beside the path is the old file's: empty it into the old file (every
            # connection to the new file would read its pages), then close the old handle
            with suppress(sqlite3.Error):
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._conn.close()
            try:
                self._conn = self._connect()
            except StoreError as exc:
                raise StoreReplaced(
                    f"{where}: the store file was replaced by one topiclens cannot use. "
                    f"Nothing was written. {exc}"
                ) from exc
            self._identity = _identity(self.path)
            self._reopened += 1
            raise StoreReplaced(
                f"{where}: the store file was replaced by another since topiclens opened "
                "it. Nothing was written; the new file is open now: reload and try again"
            )

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def write(self, *, check_references: bool = True) -> Iterator[sqlite3.Connection]:
        """One immediate write transaction: all of it lands, or none of it.

        ``check_references=False`` turns foreign-key checks off for this transaction only:
        for bulk writes whose ids were just read from this store (it halved the time of
        writing 100,000 assignments and their 500,000 similar entries)."""
        with self.lock:
            self.check_file()
            conn = self._conn
            if not check_references:
                conn.execute("PRAGMA foreign_keys = OFF")  # no effect inside a transaction
            try:
                self.retry(lambda: conn.execute("BEGIN IMMEDIATE"))
                try:
                    yield conn
                    conn.execute("COMMIT")
                except BaseException as exc:
                    # SQLite may have rolled back already (a full disk does that)
                    if conn.in_transaction:
                        with suppress(sqlite3.Error):
                            conn.execute("ROLLBACK")
                    if isinstance(exc, sqlite3.Error) and (error := explain(exc, self.path)):
                        raise error from exc
                    raise
            finally:
                if not check_references:
                    conn.execute("PRAGMA foreign_keys = ON")

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self.lock:
            return self.retry(lambda: self._conn.execute(sql, params).fetchall())

    def read(self, action: Callable[[sqlite3.Connection], _T]) -> _T:
        """``action(connection)`` under the lock, retried while the store is busy: for a
        read that needs the connection itself (several statements, a cursor)."""
        with self.lock:
            return self.retry(lambda: action(self._conn))

    def external_changes(self) -> int:
        """A counter that moves when another connection (another process) commits, or
        when the store's file was replaced (it is opened again then): compare two
        readings to know whether to reload."""
        with self.lock:
            try:
                self.check_file()
            except StoreReplaced:
                if _identity(self.path) is None:
                    raise
            version = int(self.query("PRAGMA data_version")[0][0])
            return (self._reopened << 40) + version
