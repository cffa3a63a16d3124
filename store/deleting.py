"""Deleting an entry with everything that hangs on it, and putting it all back.

:func:`delete` removes the entry's row and every row that refers to it (its bookmark,
note, read state, topic assignment, "also" memberships, cached tokens, and each topic
list's copy) in one write transaction, and returns those rows as they were: a
:class:`DeletedEntry`. :func:`restore` writes them back in one transaction, the entry under
its old rowid when that is free, so it comes back in the same place of every list, with
the same id, topic, read state, bookmark and note.

The tables that refer to an entry are found from the schema's foreign keys, so a table
added by a later migration is kept and restored without a change here; the topic lists
(``topic_list``, ``topic_also_list``) are copies without a foreign key, kept in step here
and by the triggers of migration 7.

The same transaction puts the deleted rows in the store's ``trash`` (as JSON, BLOBs in
base64), so a deletion can be undone after a restart: :func:`restore_last` brings back the
last one, :func:`restore_ids` chosen ones; the last :data:`TRASH_KEPT` are kept. A
restore writes only the columns and tables the store still has (a later migration may
have dropped some).
"""

from __future__ import annotations

import base64
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import orjson

from .connection import Database
from .schema import TOPIC_LIST_FILL

TRASH_KEPT = 1000  # deletions that can be undone, the latest kept
TITLE_CHARS = 200  # of a deleted entry's title, for listing the trash (its rows keep it whole)


@dataclass(frozen=True, slots=True)
class TableRows:
    """Rows of one table as they were read: its column names and the values."""

    table: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]


@dataclass(frozen=True, slots=True)
class DeletedEntry:
    """A deleted entry's row (``entry``, with its rowid first) and the rows of every table
    that referred to it, enough for :func:`restore` to put it back exactly."""

    entry_id: str
    title: str
    entry: TableRows
    dependents: tuple[TableRows, ...]
    trash_id: int | None = None  # its row in the trash (None: not in the trash)

    @property
    def topic_id(self) -> int | None:
        """The topic the entry was in, if any."""
        for part in self.dependents:
            if part.table == "topic_assignments" and part.rows:
                return int(part.rows[0][part.columns.index("topic_id")])
        return None


def _referring_tables(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(table, column) of every foreign key that refers to ``entries``."""
    names = [
        name
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'entries' "
            "ORDER BY name"
        )
    ]
    found: list[tuple[str, str]] = []
    for name in names:
        for fk in conn.execute("SELECT * FROM pragma_foreign_key_list(?)", (name,)):
            # (id, seq, table, from, to, on_update, on_delete, match)
            if fk[2] == "entries":
                found.append((name, fk[3]))
    return found


def _rows(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...], table: str) -> TableRows:
    cur = conn.execute(sql, params)
    rows = tuple(tuple(r) for r in cur.fetchall())
    return TableRows(table, tuple(d[0] for d in cur.description), rows)


def _resize(conn: sqlite3.Connection, topic_id: int) -> None:
    conn.execute(
        "UPDATE topics SET size = (SELECT count(*) FROM topic_assignments a "
        "WHERE a.topic_id = topics.id) WHERE id = ?",
        (topic_id,),
    )


def delete(db: Database, entry_id: str) -> DeletedEntry | None:
    """Delete the entry and every row that refers to it, in one transaction; returns
    what was deleted (None when the store has no such entry)."""
    with db.write() as conn:
        entry = _rows(conn, "SELECT rowid, * FROM entries WHERE id = ?", (entry_id,), "entries")
        if not entry.rows:
            return None
        referring = _referring_tables(conn)
        dependents = tuple(
            _rows(conn, f'SELECT * FROM "{table}" WHERE "{column}" = ?', (entry_id,), table)
            for table, column in referring
        )
        title = str(entry.rows[0][entry.columns.index("title")])
        cur = conn.execute(
            "INSERT INTO trash(entry_id, title, deleted_at, rows) VALUES (?, ?, ?, ?)",
            (entry_id, title[:TITLE_CHARS], time.time(), _to_json(entry, dependents)),
        )
        conn.execute("DELETE FROM trash WHERE id <= (SELECT max(id) FROM trash) - ?", (TRASH_KEPT,))
        deleted = DeletedEntry(entry_id, title, entry, dependents, cur.lastrowid)
        # the copies first: topic_also's delete trigger clears topic_also_list
        conn.execute("DELETE FROM topic_list WHERE entry_id = ?", (entry_id,))
        for part, (table, column) in zip(dependents, referring, strict=True):
            if part.rows:
                conn.execute(f'DELETE FROM "{table}" WHERE "{column}" = ?', (entry_id,))
        conn.execute("DELETE FROM entries WHERE id = ?", (entry_id,))
        if deleted.topic_id is not None:
            _resize(conn, deleted.topic_id)
        return deleted


def restore(db: Database, deleted: DeletedEntry) -> list[str]:
    """Put a deleted entry back with every row :func:`delete` removed, in one transaction.

    Rows already present (the entry imported again since) are left as they are; rows
    that name a topic no longer in the store (a re-cluster since) are left out, so the
    entry waits, unassigned, for the next grouping. Returns the tables whose rows were
    left out for that reason (empty: everything came back as it was)."""
    with db.write() as conn:
        return _restore(conn, deleted)


# tables whose topic_id places the entry in a topic: a row naming a topic gone is left out
PLACING = ("topic_assignments", "topic_also", "entry_pins")


def _restore(conn: sqlite3.Connection, deleted: DeletedEntry) -> list[str]:
    """:func:`restore` inside the caller's write transaction; the entry leaves the trash."""
    entry_id = deleted.entry_id
    left_out: list[str] = []
    # the trash's copy is the one kept up to date (an undone pin is taken out of it)
    row = conn.execute(
        "SELECT id, entry_id, title, rows FROM trash WHERE entry_id = ? ORDER BY id DESC LIMIT 1",
        (entry_id,),
    ).fetchone()
    if row is not None:
        deleted = _from_row(row)
    conn.execute("DELETE FROM trash WHERE entry_id = ?", (entry_id,))
    topics = {tid for (tid,) in conn.execute("SELECT id FROM topics")}
    columns, row = deleted.entry.columns, deleted.entry.rows[0]
    rowid_taken = conn.execute(
        "SELECT 1 FROM entries WHERE rowid = ? AND id != ?", (row[0], entry_id)
    ).fetchone()
    if rowid_taken:  # another entry took its place: it comes back at the end
        columns, row = columns[1:], row[1:]
    _insert(conn, TableRows("entries", columns, (row,)))
    for part in deleted.dependents:
        kept = part.rows
        if "topic_id" in part.columns:
            at = part.columns.index("topic_id")
            if part.table in PLACING:
                kept = tuple(r for r in part.rows if r[at] in topics)
                if len(kept) < len(part.rows):
                    left_out.append(part.table)
            else:  # (a bookmark's topic): kept, without a topic that is gone
                kept = tuple(
                    r if r[at] in topics else (*r[:at], None, *r[at + 1 :]) for r in part.rows
                )
        _insert(conn, TableRows(part.table, part.columns, kept))
    topic_id = deleted.topic_id
    if topic_id is not None and topic_id in topics:
        conn.execute("DELETE FROM topic_list WHERE entry_id = ?", (entry_id,))
        conn.execute(TOPIC_LIST_FILL + " WHERE a.entry_id = ?", (entry_id,))
        _resize(conn, topic_id)
    return left_out


def set_trashed_pin(conn: sqlite3.Connection, entry_id: str, pin: Sequence[Any] | None) -> None:
    """Make the pin a deleted entry comes back with ``pin`` ((topic id, pinned at); None:
    no pin): an undone correction's pin stays undone when the entry is brought back."""
    row = conn.execute(
        "SELECT id, entry_id, title, rows FROM trash WHERE entry_id = ? ORDER BY id DESC LIMIT 1",
        (entry_id,),
    ).fetchone()
    if row is None:
        return
    deleted = _from_row(row)
    parts = []
    for part in deleted.dependents:
        if part.table == "entry_pins":
            values = {"entry_id": entry_id, "topic_id": None, "pinned_at": None}
            if pin is not None:
                values["topic_id"], values["pinned_at"] = pin
            rows = () if pin is None else (tuple(values.get(c) for c in part.columns),)
            part = TableRows(part.table, part.columns, rows)
        parts.append(part)
    conn.execute("UPDATE trash SET rows = ? WHERE id = ?", (_to_json(deleted.entry, parts), row[0]))


def _insert(conn: sqlite3.Connection, part: TableRows) -> None:
    """Write ``part``'s rows, in the columns its table still has (none: a table gone)."""
    if not part.rows:
        return
    have = {
        name for (name,) in conn.execute("SELECT name FROM pragma_table_info(?)", (part.table,))
    }
    if part.table == "entries":
        have.add("rowid")
    at = [i for i, c in enumerate(part.columns) if c in have]
    if not at:
        return
    names = ", ".join(f'"{part.columns[i]}"' for i in at)
    marks = ", ".join("?" * len(at))
    rows = [tuple(r[i] for i in at) for r in part.rows]
    # OR IGNORE: a row the store has again (the entry imported since) is left as it is
    conn.executemany(f'INSERT OR IGNORE INTO "{part.table}"({names}) VALUES ({marks})', rows)


# --- the trash: deleted entries kept across restarts -------------------------------------


class TrashItem(NamedTuple):
    """A deletion in the trash: its row's id, the entry, its title (cut) and when."""

    trash_id: int
    entry_id: str
    title: str
    deleted_at: float


class Restored(NamedTuple):
    """An entry brought back from the trash, and the tables whose rows named a topic
    gone since (left out: the entry joins a topic at the next grouping)."""

    entry_id: str
    title: str
    left_out: list[str]


def _value(value: Any) -> Any:
    return {"blob": base64.b64encode(value).decode("ascii")} if isinstance(value, bytes) else value


def _unvalue(value: Any) -> Any:
    return base64.b64decode(value["blob"]) if isinstance(value, dict) else value


def _part_json(part: TableRows) -> dict[str, Any]:
    rows = [[_value(v) for v in row] for row in part.rows]
    return {"table": part.table, "columns": list(part.columns), "rows": rows}


def _part(value: dict[str, Any]) -> TableRows:
    rows = tuple(tuple(_unvalue(v) for v in row) for row in value["rows"])
    return TableRows(str(value["table"]), tuple(value["columns"]), rows)


def _to_json(entry: TableRows, dependents: Sequence[TableRows]) -> str:
    doc = {"entry": _part_json(entry), "dependents": [_part_json(d) for d in dependents]}
    return orjson.dumps(doc).decode()


def _from_row(row: tuple[int, str, str, str]) -> DeletedEntry:
    trash_id, entry_id, title, blob = row
    doc = orjson.loads(blob)
    entry = _part(doc["entry"])
    full = str(entry.rows[0][entry.columns.index("title")]) if entry.rows else title
    return DeletedEntry(entry_id, full, entry, tuple(_part(d) for d in doc["dependents"]), trash_id)


def trash(db: Database) -> list[TrashItem]:
    """The deletions in the trash, the last first."""
    rows = db.query("SELECT id, entry_id, title, deleted_at FROM trash ORDER BY id DESC")
    return [TrashItem(*r) for r in rows]


def restore_last(db: Database) -> Restored | None:
    """Bring back the last deletion in the trash (None: the trash is empty), in one
    transaction: across restarts, what the reader's undo of a deletion does."""
    with db.write() as conn:
        row = conn.execute(
            "SELECT id, entry_id, title, rows FROM trash ORDER BY id DESC LIMIT 1"
        ).fetchone()
        if row is None:
            return None
        deleted = _from_row(row)
        return Restored(deleted.entry_id, deleted.title, _restore(conn, deleted))


def restore_ids(db: Database, entry_ids: Sequence[str]) -> list[Restored]:
    """Bring back the entries ``entry_ids`` from the trash (each as last deleted), in one
    transaction; ids not in the trash are skipped."""
    done: list[Restored] = []
    with db.write() as conn:
        for entry_id in dict.fromkeys(entry_ids):
            row = conn.execute(
                "SELECT id, entry_id, title, rows FROM trash WHERE entry_id = ? "
                "ORDER BY id DESC LIMIT 1",
                (entry_id,),
            ).fetchone()
            if row is not None:
                deleted = _from_row(row)
                done.append(Restored(deleted.entry_id, deleted.title, _restore(conn, deleted)))
    return done
