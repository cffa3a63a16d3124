"""The SQLite store: entries, bookmarks, read state, topics and what clustering keeps.

One file in the data directory, WAL mode, a schema version (``PRAGMA user_version``) with
forward migrations, a busy timeout so a second process waits instead of failing, and one
transaction per import. Opening never writes to a file that is not a topiclens store.
"""

from __future__ import annotations

import itertools
import os
import shutil
import sqlite3
import threading
import time
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar

import orjson

from .models import Bookmark, Entry, ImportReport, ParseResult, Topic

_T = TypeVar("_T")

STORE_FILENAME = "topiclens.db"
BUSY_TIMEOUT_MS = 30_000

# fills topic_list (migration 6) from the assignments
TOPIC_LIST_FILL = """
    INSERT INTO topic_list(topic_id, undated, date, entry_rowid, entry_id, title, source)
    SELECT a.topic_id, e.date IS NULL, coalesce(e.date, ''), e.rowid, e.id, e.title, e.source
    FROM topic_assignments a JOIN entries e ON e.id = a.entry_id
"""

MIGRATIONS: tuple[str, ...] = (
    # 1: the first schema
    """
    CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE entries (
        id          TEXT PRIMARY KEY,
        title       TEXT NOT NULL,
        title_given INTEGER NOT NULL DEFAULT 1,
        summary     TEXT NOT NULL,
        comment     TEXT NOT NULL DEFAULT '',
        source      TEXT NOT NULL DEFAULT '',
        category    TEXT NOT NULL DEFAULT '',
        date        TEXT,
        url         TEXT,
        lang        TEXT NOT NULL,
        format      TEXT NOT NULL,
        origin_file TEXT NOT NULL,
        origin_line INTEGER NOT NULL,
        extra       TEXT NOT NULL DEFAULT '{}',
        imported_at REAL NOT NULL
    );
    CREATE INDEX entries_date ON entries(date);
    CREATE TABLE bookmarks (
        entry_id   TEXT PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
        created_at REAL NOT NULL,
        note       TEXT NOT NULL DEFAULT ''
    );
    CREATE TABLE read_state (
        entry_id TEXT PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
        read_at  REAL NOT NULL
    );
    CREATE TABLE topics (
        id         INTEGER PRIMARY KEY,
        name       TEXT NOT NULL,
        user_named INTEGER NOT NULL DEFAULT 0,
        anchor     TEXT,
        keywords   TEXT NOT NULL DEFAULT '[]',
        size       INTEGER NOT NULL DEFAULT 0,
        updated_at REAL NOT NULL
    );
    CREATE TABLE topic_assignments (
        entry_id TEXT PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
        topic_id INTEGER NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
        score    REAL NOT NULL DEFAULT 0,
        terms    TEXT NOT NULL DEFAULT '[]'
    );
    CREATE INDEX topic_assignments_topic ON topic_assignments(topic_id);
    CREATE TABLE similar (
        entry_id TEXT NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
        other_id TEXT NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
        rank     INTEGER NOT NULL,
        score    REAL NOT NULL,
        PRIMARY KEY (entry_id, rank)
    );
    CREATE TABLE token_cache (
        entry_id          TEXT PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
        content_hash      TEXT NOT NULL,
        tokenizer_version TEXT NOT NULL,
        tokens            BLOB NOT NULL
    );
    """,
    # 2: the fitted topic model, so entries imported later join their nearest topic
    """
    CREATE TABLE topic_model (
        id         INTEGER PRIMARY KEY CHECK (id = 1),
        version    TEXT NOT NULL,
        created_at REAL NOT NULL,
        model      BLOB NOT NULL
    );
    """,
    # 3: covering indexes for the reader's entry list (Store.topic_rows): a topic's rows
    # come from two index-only searches, not a table row per entry (a topic of 6,395 of
    # 100,000 entries: ~55 ms -> ~25 ms warm). The new assignments index starts with
    # topic_id, so it replaces the old one.
    """
    CREATE INDEX topic_assignments_topic_entry ON topic_assignments(topic_id, entry_id);
    DROP INDEX topic_assignments_topic;
    CREATE INDEX entries_row ON entries(id, date, title, source);
    """,
    # 4: cached tokens as ids into one table of token strings: a re-cluster of 100,000
    # entries reads 24 million ids as arrays instead of making 24 million strings. The
    # cached rows of the old format (strings) are dropped: they are made again once.
    """
    CREATE TABLE token_vocab (
        id    INTEGER PRIMARY KEY,
        token TEXT NOT NULL UNIQUE
    );
    DELETE FROM token_cache;
    """,
    # 5: each entry's similar entries live in its assignment row, as JSON [[id, score],
    # ...] best first: a re-cluster of 100,000 entries writes 100,000 rows, not 600,000,
    # and the reader finds them with the assignment's key
    """
    ALTER TABLE topic_assignments ADD COLUMN similar TEXT NOT NULL DEFAULT '[]';
    UPDATE topic_assignments SET similar = (
        SELECT json_group_array(json_array(other_id, score)) FROM (
            SELECT other_id, score FROM similar s
            WHERE s.entry_id = topic_assignments.entry_id ORDER BY rank
        )
    ) WHERE entry_id IN (SELECT entry_id FROM similar);
    DROP TABLE similar;
    """,
    # 6: each topic's entry list as the reader shows it (newest first, undated last),
    # stored in that order: a topic of 10,000 entries is one range read instead of a
    # join and a sort. Rewritten with the assignments, in the same transaction.
    """
    CREATE TABLE topic_list (
        topic_id    INTEGER NOT NULL,
        undated     INTEGER NOT NULL,
        date        TEXT NOT NULL,
        entry_rowid INTEGER NOT NULL,
        entry_id    TEXT NOT NULL,
        title       TEXT NOT NULL,
        source      TEXT NOT NULL,
        PRIMARY KEY (topic_id, undated, date DESC, entry_rowid)
    ) WITHOUT ROWID;
    CREATE INDEX topic_list_entry ON topic_list(entry_id);
    """
    + TOPIC_LIST_FILL
    + ";",
)
SCHEMA_VERSION = len(MIGRATIONS)

_ENTRY_COLUMNS = (
    "id, title, title_given, summary, comment, source, category, date, url, lang, format, "
    "origin_file, origin_line, extra"
)


# OR IGNORE: an id already stored (the same content) is left as it is
INSERT_ENTRY = (
    f"INSERT OR IGNORE INTO entries({_ENTRY_COLUMNS}, imported_at) "
    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)


INSERT_ASSIGNMENT = (
    "INSERT OR REPLACE INTO topic_assignments(entry_id, topic_id, score, terms, similar) "
    "VALUES (?,?,?,?,?)"
)


def _assignment_rows(
    assignments: dict[str, tuple[int, float, list[str]]],
    similar: dict[str, list[tuple[str, float]]],
) -> Iterator[tuple[str, int, float, str, str]]:
    """``INSERT_ASSIGNMENT`` values: (entry id, topic id, score, terms, similar entries)."""
    dumps = orjson.dumps
    for eid, (tid, score, terms) in assignments.items():
        near = similar.get(eid)
        yield (
            eid,
            tid,
            float(score),
            dumps(terms).decode(),
            dumps(near).decode() if near else "[]",
        )


def entry_row(e: Entry, imported_at: float) -> tuple[Any, ...]:
    """The values of ``INSERT_ENTRY`` for one entry."""
    return (
        e.id,
        e.title,
        int(e.title_given),
        e.summary,
        e.comment,
        e.source,
        e.category,
        e.date,
        e.url,
        e.lang,
        e.format,
        e.origin_file,
        e.origin_line,
        orjson.dumps(e.extra).decode() if e.extra else "{}",
        imported_at,
    )


class StoreError(Exception):
    """The store cannot be used as it is; the message says what to do."""


SQLITE_MAGIC = b"SQLite format 3\x00"
# How long to keep retrying a lock that SQLite reports busy without waiting its timeout
# (a connection in recovery, a journal-mode switch on a fresh file).
RETRY_SECONDS = BUSY_TIMEOUT_MS / 1000


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
        name.startswith("SQLITE_NOTADB") and _has_sqlite_header(path)
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


def _has_sqlite_header(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def _is_busy(exc: sqlite3.Error) -> bool:
    name = getattr(exc, "sqlite_errorname", "") or ""
    return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in str(exc)


def _row_to_entry(row: Sequence[Any]) -> Entry:
    return Entry(
        id=row[0],
        title=row[1],
        title_given=bool(row[2]),
        summary=row[3],
        comment=row[4],
        source=row[5],
        category=row[6],
        date=row[7],
        url=row[8],
        lang=row[9],
        format=row[10],
        origin_file=row[11],
        origin_line=row[12],
        extra=orjson.loads(row[13]) if row[13] else {},
    )


class Store:
    """A topiclens store. Safe to share between threads (one lock around the connection)
    and between processes (WAL, busy timeout, immediate write transactions)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        self._conn = self._connect()
        # token_vocab as read so far: ids are dense from 0, given out in write transactions
        self._tokens: list[str] = []
        self._token_ids: dict[str, int] = {}

    @classmethod
    def open_dir(cls, data_dir: str | Path) -> Store:
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

    # --- connection and schema -------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        where = str(self.path)
        if self.path.exists() and self.path.is_dir():
            raise StoreError(f"{where}: is a directory, not a topiclens store")
        try:
            conn = sqlite3.connect(
                where, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise (explain(exc, self.path) or StoreError(f"{where}: cannot open ({exc})")) from exc
        try:
            self._retry(lambda: self._prepare(conn))
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise StoreError(f"{where}: cannot use the store ({exc})") from exc
        except BaseException:
            conn.close()
            raise
        return conn

    def _prepare(self, conn: sqlite3.Connection) -> None:
        """Check what the file is, then set the connection up and migrate the schema.
        Nothing is written unless the file is a topiclens store (or empty)."""
        where = str(self.path)
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
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA foreign_keys = ON")
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            self._migrate(conn, version)
        except BaseException:
            if conn.in_transaction:
                with suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            raise

    def _retry(self, action: Callable[[], _T]) -> _T:
        """Run ``action`` (which must be safe to run again), retrying while SQLite reports
        the store busy without having waited its busy timeout; turn errors that come from
        the file or the disk into a :class:`StoreError` that says what to do."""
        deadline = time.monotonic() + RETRY_SECONDS
        delay = 0.005
        while True:
            try:
                return action()
            except sqlite3.Error as exc:
                if _is_busy(exc) and time.monotonic() < deadline:
                    time.sleep(delay)
                    delay = min(delay * 2, 0.25)
                    continue
                error = explain(exc, self.path)
                if error is None:
                    raise
                raise error from exc

    @staticmethod
    def _migrate(conn: sqlite3.Connection, version: int) -> None:
        for target in range(version + 1, SCHEMA_VERSION + 1):
            conn.execute("BEGIN IMMEDIATE")
            # re-read under the write lock: another process may have migrated already
            current = conn.execute("PRAGMA user_version").fetchone()[0]
            if current < target:
                for statement in MIGRATIONS[target - 1].split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {target}")
            conn.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def write(self, *, check_references: bool = True) -> Iterator[sqlite3.Connection]:
        """One immediate write transaction: all of it lands, or none of it.

        ``check_references=False`` turns foreign-key checks off for this transaction only:
        for bulk writes whose ids were just read from this store (it halved the time of
        writing 100,000 assignments and their 500,000 similar entries)."""
        with self._lock:
            conn = self._conn
            if not check_references:
                conn.execute("PRAGMA foreign_keys = OFF")  # no effect inside a transaction
            try:
                self._retry(lambda: conn.execute("BEGIN IMMEDIATE"))
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
        with self._lock:
            return self._retry(lambda: self._conn.execute(sql, params).fetchall())

    # --- meta ------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        rows = self.query("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        with self.write() as conn:
            conn.execute(
                "INSERT INTO meta(key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    # --- entries ---------------------------------------------------------------------

    def add_entries(self, entries: Iterable[Entry]) -> tuple[list[str], int]:
        """Insert entries in one transaction; returns (ids that were new, count known).

        Entries are taken a batch at a time: the batch's known ids are looked up in one
        query and its new rows go in with one executemany (100,000 entries in a fraction
        of the time of a row-at-a-time insert)."""
        now = time.time()
        new: list[str] = []
        known = 0
        with self.write() as conn:
            items = iter(entries)
            while batch := tuple(itertools.islice(items, 900)):
                marks = ",".join("?" * len(batch))
                present = {
                    r[0]
                    for r in conn.execute(
                        f"SELECT id FROM entries WHERE id IN ({marks})", [e.id for e in batch]
                    )
                }
                rows = []
                for e in batch:
                    if e.id in present:  # in the store, or earlier in this batch
                        known += 1
                        continue
                    present.add(e.id)
                    new.append(e.id)
                    rows.append(entry_row(e, now))
                conn.executemany(INSERT_ENTRY, rows)
        return new, known

    def import_result(self, result: ParseResult) -> ImportReport:
        new, known = self.add_entries(result.entries)
        return ImportReport(
            new=len(new),
            known=known,
            rejected=len(result.problems),
            problems=list(result.problems),
            new_ids=new,
            notes=list(result.notes),
        )

    def count_entries(self) -> int:
        return int(self.query("SELECT count(*) FROM entries")[0][0])

    def entry(self, entry_id: str) -> Entry | None:
        rows = self.query(f"SELECT {_ENTRY_COLUMNS} FROM entries WHERE id = ?", (entry_id,))
        return _row_to_entry(rows[0]) if rows else None

    def entries(self, ids: Sequence[str] | None = None) -> list[Entry]:
        """Entries newest first (undated last, then in import order); ``ids`` keeps its order."""
        if ids is None:
            rows = self.query(
                f"SELECT {_ENTRY_COLUMNS} FROM entries ORDER BY date IS NULL, date DESC, rowid"
            )
            return [_row_to_entry(r) for r in rows]
        return self._rows_by_id(_ENTRY_COLUMNS, ids, _row_to_entry)

    def _rows_by_id(
        self, columns: str, ids: Sequence[str], convert: Callable[[Any], _T]
    ) -> list[_T]:
        """``convert`` of the entries' ``columns`` (the first being id) for ``ids``, in the
        order given, skipping ids not stored; queried 500 ids at a time."""
        found: dict[str, _T] = {}
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            marks = ",".join("?" * len(chunk))
            for r in self.query(f"SELECT {columns} FROM entries WHERE id IN ({marks})", chunk):
                found[r[0]] = convert(r)
        return [found[i] for i in ids if i in found]

    def entry_texts(self, ids: Sequence[str] | None = None) -> list[tuple[str, str]]:
        """(id, text) for every entry in import order, or for ``ids`` in that order: what
        clustering reads. Only the title, summary and comment: never source, category or
        other metadata."""
        columns = "id, title, summary, comment"
        rows = (
            self.query(f"SELECT {columns} FROM entries ORDER BY rowid")
            if ids is None
            else self._rows_by_id(columns, ids, tuple)
        )
        return [(r[0], "\n".join(p for p in r[1:] if p)) for r in rows]

    def entry_ids(self) -> list[str]:
        """Every entry's id, in import order (the order of :meth:`entry_texts`)."""
        return [r[0] for r in self.query("SELECT id FROM entries ORDER BY rowid")]

    def search(self, query: str, limit: int | None = None) -> list[str]:
        """Ids of entries whose title, summary or comment contain every word of ``query``
        (case-insensitive; Chinese matched as written), newest first."""
        words = query.split()
        if not words:
            return []
        clause = " AND ".join(
            ["(title || ' ' || summary || ' ' || comment) LIKE ? ESCAPE '\\'"] * len(words)
        )
        params: list[Any] = [
            "%" + w.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            for w in words
        ]
        sql = f"SELECT id FROM entries WHERE {clause} ORDER BY date IS NULL, date DESC, rowid"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [r[0] for r in self.query(sql, params)]

    # --- bookmarks -------------------------------------------------------------------

    def bookmarks(self) -> list[Bookmark]:
        rows = self.query(
            "SELECT entry_id, created_at, note FROM bookmarks ORDER BY created_at, rowid"
        )
        return [Bookmark(r[0], r[1], r[2]) for r in rows]

    def bookmark(self, entry_id: str) -> Bookmark | None:
        rows = self.query(
            "SELECT entry_id, created_at, note FROM bookmarks WHERE entry_id = ?", (entry_id,)
        )
        return Bookmark(*rows[0]) if rows else None

    def bookmark_ids(self) -> set[str]:
        return {r[0] for r in self.query("SELECT entry_id FROM bookmarks")}

    def set_bookmark(self, entry_id: str, on: bool, note: str | None = None) -> None:
        with self.write() as conn:
            if on:
                conn.execute(
                    "INSERT INTO bookmarks(entry_id, created_at, note) VALUES (?, ?, ?) "
                    "ON CONFLICT(entry_id) DO UPDATE SET note = coalesce(?, note)",
                    (entry_id, time.time(), note or "", note),
                )
            else:
                conn.execute("DELETE FROM bookmarks WHERE entry_id = ?", (entry_id,))

    def toggle_bookmark(self, entry_id: str) -> bool:
        """Flip the bookmark in one transaction; returns whether it is now bookmarked."""
        with self.write() as conn:
            gone = conn.execute("DELETE FROM bookmarks WHERE entry_id = ?", (entry_id,)).rowcount
            if gone:
                return False
            conn.execute(
                "INSERT INTO bookmarks(entry_id, created_at, note) VALUES (?, ?, '')",
                (entry_id, time.time()),
            )
            return True

    def set_note(self, entry_id: str, note: str) -> None:
        """Set the bookmark's note, bookmarking the entry if it was not."""
        self.set_bookmark(entry_id, True, note)

    # --- read state ------------------------------------------------------------------

    def read_ids(self) -> set[str]:
        return {r[0] for r in self.query("SELECT entry_id FROM read_state")}

    def set_read(self, entry_id: str, read: bool = True) -> None:
        with self.write() as conn:
            if read:
                conn.execute(
                    "INSERT OR IGNORE INTO read_state(entry_id, read_at) VALUES (?, ?)",
                    (entry_id, time.time()),
                )
            else:
                conn.execute("DELETE FROM read_state WHERE entry_id = ?", (entry_id,))

    # --- topics ----------------------------------------------------------------------

    def topics(self) -> list[Topic]:
        rows = self.query(
            "SELECT id, name, keywords, size, user_named, anchor FROM topics ORDER BY size DESC, id"
        )
        return [
            Topic(r[0], r[1], [tuple(k) for k in orjson.loads(r[2])], r[3], bool(r[4]), r[5])
            for r in rows
        ]

    def topic(self, topic_id: int) -> Topic | None:
        return next((t for t in self.topics() if t.id == topic_id), None)

    def topic_entry_ids(self, topic_id: int) -> list[str]:
        rows = self.query(
            "SELECT a.entry_id FROM topic_assignments a JOIN entries e ON e.id = a.entry_id "
            "WHERE a.topic_id = ? ORDER BY e.date IS NULL, e.date DESC, e.rowid",
            (topic_id,),
        )
        return [r[0] for r in rows]

    def assignments(self) -> dict[str, int]:
        return {r[0]: r[1] for r in self.query("SELECT entry_id, topic_id FROM topic_assignments")}

    def assignment(self, entry_id: str) -> tuple[int, float, list[str]] | None:
        rows = self.query(
            "SELECT topic_id, score, terms FROM topic_assignments WHERE entry_id = ?", (entry_id,)
        )
        if not rows:
            return None
        topic_id, score, terms = rows[0]
        return topic_id, score, orjson.loads(terms)

    def similar(self, entry_id: str) -> list[tuple[str, float]]:
        """The entry's most similar entries, best first: (entry id, cosine)."""
        rows = self.query("SELECT similar FROM topic_assignments WHERE entry_id = ?", (entry_id,))
        return [(o, s) for o, s in orjson.loads(rows[0][0])] if rows else []

    def replace_topics(
        self,
        topics: Sequence[Topic],
        assignments: dict[str, tuple[int, float, list[str]]],
        similar: dict[str, list[tuple[str, float]]] | None = None,
        *,
        model: tuple[str, bytes] | None = None,
    ) -> None:
        """Replace the whole clustering result in one transaction.

        ``topics`` carry their final ids (the caller has matched them to the old ones);
        a topic the user renamed keeps its name unless ``Topic.user_named`` is False here.
        ``assignments`` maps entry id to (topic id, score, terms tying it to the topic).
        ``model`` (version, blob), the fitted model that placed them, is stored in the same
        transaction, so topics and the model that assigns new entries never disagree.
        Every id comes from this store's entries (entries are never deleted), so the bulk
        rows skip foreign-key checks."""
        now = time.time()
        with self.write(check_references=False) as conn:
            if similar is None:  # keep each entry's similar entries as they are
                similar = {
                    eid: orjson.loads(blob)
                    for eid, blob in conn.execute(
                        "SELECT entry_id, similar FROM topic_assignments WHERE similar != '[]'"
                    )
                }
            keep = [t.id for t in topics]
            marks = ",".join("?" * len(keep)) or "NULL"
            conn.execute("DELETE FROM topic_assignments")
            conn.execute(f"DELETE FROM topics WHERE id NOT IN ({marks})", keep)
            for t in topics:
                conn.execute(
                    "INSERT INTO topics(id, name, user_named, anchor, keywords, size, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
                    "name = CASE WHEN topics.user_named THEN topics.name ELSE excluded.name END, "
                    "anchor = excluded.anchor, keywords = excluded.keywords, "
                    "size = excluded.size, updated_at = excluded.updated_at",
                    (
                        t.id,
                        t.name,
                        int(t.user_named),
                        t.anchor,
                        orjson.dumps([list(k) for k in t.keywords]).decode(),
                        t.size,
                        now,
                    ),
                )
            conn.executemany(INSERT_ASSIGNMENT, _assignment_rows(assignments, similar))
            conn.execute("DELETE FROM topic_list")
            conn.execute(TOPIC_LIST_FILL)
            if model is not None:
                self._put_topic_model(conn, *model)

    def external_changes(self) -> int:
        """A counter that moves when another connection (another process) commits:
        compare two readings to know whether to reload."""
        return int(self.query("PRAGMA data_version")[0][0])

    def rename_topic(self, topic_id: int, name: str) -> bool:
        name = name.strip()
        if not name:
            raise ValueError("a topic name cannot be empty")
        with self.write() as conn:
            cur = conn.execute(
                "UPDATE topics SET name = ?, user_named = 1, updated_at = ? WHERE id = ?",
                (name, time.time(), topic_id),
            )
            return cur.rowcount > 0

    # --- clustering: token cache, fitted model, incremental assignment (helper A) -----

    def iter_cached_tokens(
        self, version: str, batch: int = 5000
    ) -> Iterator[tuple[str, str, bytes]]:
        """(entry id, content hash, token ids) of every cached row of tokenizer
        ``version``, a batch at a time, so a large cache never sits in memory whole. The
        ids are native unsigned 32-bit integers (``array("I")``, numpy ``uint32``) into
        :meth:`token_vocab`."""
        last = 0
        while True:
            rows = self.query(
                "SELECT rowid, entry_id, content_hash, tokens FROM token_cache "
                "WHERE tokenizer_version = ? AND rowid > ? ORDER BY rowid LIMIT ?",
                (version, last, batch),
            )
            if not rows:
                return
            for r in rows:
                yield r[1], r[2], r[3]
            last = rows[-1][0]

    def token_vocab(self) -> list[str]:
        """Every token string any cached row uses, indexed by its id (the list grows)."""
        with self._lock:
            self._read_tokens(self._conn)
            return self._tokens

    def _read_tokens(self, conn: sqlite3.Connection) -> None:
        rows = conn.execute(
            "SELECT id, token FROM token_vocab WHERE id >= ? ORDER BY id", (len(self._tokens),)
        ).fetchall()
        for tid, token in rows:
            if tid != len(self._tokens):
                raise StoreError(f"{self.path}: the token table has a gap at id {tid}")
            self._token_ids[token] = tid
            self._tokens.append(token)

    def put_tokens(self, rows: Sequence[tuple[str, str, str, Sequence[str]]]) -> list[bytes]:
        """Cache (entry id, content hash, tokenizer version, tokens) rows; returns each
        row's token ids as stored. Tokens new to the store get the next ids in the same
        transaction, so two processes never give one id to two tokens."""
        if array("I").itemsize != 4:  # pragma: no cover - no such platform in use
            raise StoreError("token ids need 4-byte unsigned integers")
        blobs: list[bytes] = []
        fresh: list[tuple[int, str]] = []
        try:
            with self.write() as conn:
                self._read_tokens(conn)  # ids others gave out since
                index, tokens = self._token_ids, self._tokens
                out = []
                for eid, digest, version, toks in rows:
                    ids = list(map(index.get, toks))
                    if None in ids:
                        for i, t in enumerate(toks):
                            if ids[i] is None:
                                tid = index.get(t)
                                if tid is None:
                                    tid = index[t] = len(tokens)
                                    tokens.append(t)
                                    fresh.append((tid, t))
                                ids[i] = tid
                    blob = array("I", ids).tobytes()
                    blobs.append(blob)
                    out.append((eid, digest, version, blob))
                conn.executemany("INSERT INTO token_vocab(id, token) VALUES (?, ?)", fresh)
                conn.executemany(
                    "INSERT OR REPLACE INTO token_cache"
                    "(entry_id, content_hash, tokenizer_version, tokens) VALUES (?,?,?,?)",
                    out,
                )
        except BaseException:
            # rolled back: forget the ids given out here; they are read again next time
            with self._lock:
                for _, t in fresh:
                    del self._token_ids[t]
                del self._tokens[len(self._tokens) - len(fresh) :]
            raise
        return blobs

    def topic_model(self) -> tuple[str, bytes] | None:
        """(version, blob) of the fitted topic model, if any."""
        rows = self.query("SELECT version, model FROM topic_model WHERE id = 1")
        return (rows[0][0], rows[0][1]) if rows else None

    @staticmethod
    def _put_topic_model(conn: sqlite3.Connection, version: str, blob: bytes) -> None:
        conn.execute(
            "INSERT OR REPLACE INTO topic_model(id, version, created_at, model) "
            "VALUES (1, ?, ?, ?)",
            (version, time.time(), blob),
        )

    def unassigned_ids(self) -> list[str]:
        """Ids of entries in no topic, in import order."""
        rows = self.query(
            "SELECT id FROM entries WHERE id NOT IN (SELECT entry_id FROM topic_assignments) "
            "ORDER BY rowid"
        )
        return [r[0] for r in rows]

    def add_assignments(
        self,
        assignments: dict[str, tuple[int, float, list[str]]],
        similar: dict[str, list[tuple[str, float]]] | None = None,
    ) -> list[str]:
        """Put entries into existing topics (no re-cluster) and update the topics' sizes,
        in one transaction. Returns the ids of the entries it could not assign because
        their topic is gone (a re-cluster in another process replaced the topics since
        the caller read them): the topics are checked inside this write transaction, the
        other rows are written, and the caller places those entries again."""
        with self.write() as conn:
            wanted = {tid for tid, _, _ in assignments.values()}
            marks = ",".join("?" * len(wanted)) or "NULL"
            live = {
                r[0]
                for r in conn.execute(f"SELECT id FROM topics WHERE id IN ({marks})", list(wanted))
            }
            orphans = [eid for eid, (tid, _, _) in assignments.items() if tid not in live]
            if orphans:
                assignments = {e: a for e, a in assignments.items() if a[0] in live}
            conn.executemany(INSERT_ASSIGNMENT, _assignment_rows(assignments, similar or {}))
            ids = [(eid,) for eid in assignments]
            conn.executemany("DELETE FROM topic_list WHERE entry_id = ?", ids)
            conn.executemany(TOPIC_LIST_FILL + " WHERE a.entry_id = ?", ids)
            conn.execute(
                "UPDATE topics SET size = (SELECT count(*) FROM topic_assignments a "
                "WHERE a.topic_id = topics.id)"
            )
        return orphans

    # --- reader queries (helper D): light rows for long lists ------------------------

    def topic_rows(self, topic_id: int) -> list[tuple[str, str, str, str | None]]:
        """(id, title, source, date) of a topic's entries, newest first, undated last:
        one range of ``topic_list``, already in that order (no join, no sort), so a list
        of thousands of entries loads in milliseconds."""
        return self.query(
            "SELECT entry_id, title, source, CASE WHEN undated THEN NULL ELSE date END "
            "FROM topic_list WHERE topic_id = ? ORDER BY undated, date DESC, entry_rowid",
            (topic_id,),
        )

    def entry_rows(self, ids: Sequence[str]) -> list[tuple[str, str, str, str | None]]:
        """(id, title, source, date) for ``ids``, in the order given."""
        return self._rows_by_id("id, title, source, date", ids, tuple)

    def topic_unread_counts(self) -> dict[int, int]:
        """Unread entries per topic id (topics with none are absent). Counted as members
        (an index-only scan) minus read members (as many rows as entries read), which
        stays fast at 100,000 entries."""
        members = self.query("SELECT topic_id, count(*) FROM topic_assignments GROUP BY topic_id")
        read = dict(
            self.query(
                # CROSS JOIN keeps read_state the outer loop: without statistics SQLite
                # would scan every assignment instead (120 ms at 100,000 entries)
                "SELECT a.topic_id, count(*) FROM read_state r "
                "CROSS JOIN topic_assignments a ON a.entry_id = r.entry_id GROUP BY a.topic_id"
            )
        )
        counts = {tid: n - read.get(tid, 0) for tid, n in members}
        return {tid: n for tid, n in counts.items() if n > 0}

    def count_unassigned(self) -> int:
        """Entries no topic holds yet (imported since the last clustering)."""
        return int(
            self.query(
                "SELECT count(*) FROM entries e WHERE NOT EXISTS "
                "(SELECT 1 FROM topic_assignments a WHERE a.entry_id = e.id)"
            )[0][0]
        )

    def topic_profile(self) -> tuple[dict[int, list[tuple[str, int]]], dict[int, dict[str, int]]]:
        """For the topic overview: per topic, its sources with counts (most first) and its
        entries per month ('YYYY-MM' -> count; undated entries are left out)."""
        sources: dict[int, list[tuple[str, int]]] = {}
        for tid, source, n in self.query(
            "SELECT a.topic_id, e.source, count(*) FROM topic_assignments a "
            "JOIN entries e ON e.id = a.entry_id WHERE e.source != '' "
            "GROUP BY a.topic_id, e.source ORDER BY a.topic_id, count(*) DESC, e.source"
        ):
            sources.setdefault(tid, []).append((source, n))
        months: dict[int, dict[str, int]] = {}
        for tid, month, n in self.query(
            "SELECT a.topic_id, substr(e.date, 1, 7), count(*) FROM topic_assignments a "
            "JOIN entries e ON e.id = a.entry_id WHERE e.date IS NOT NULL "
            "GROUP BY a.topic_id, substr(e.date, 1, 7)"
        ):
            months.setdefault(tid, {})[month] = n
        return sources, months
