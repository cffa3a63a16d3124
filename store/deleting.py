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
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from .connection import Database
from .schema import TOPIC_LIST_FILL


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
        deleted = DeletedEntry(
            entry_id, str(entry.rows[0][entry.columns.index("title")]), entry, dependents
        )
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
    entry_id = deleted.entry_id
    left_out: list[str] = []
    with db.write() as conn:
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
                kept = tuple(r for r in part.rows if r[at] in topics)
                if len(kept) < len(part.rows):
                    left_out.append(part.table)
            _insert(conn, TableRows(part.table, part.columns, kept))
        topic_id = deleted.topic_id
        if topic_id is not None and topic_id in topics:
            conn.execute("DELETE FROM topic_list WHERE entry_id = ?", (entry_id,))
            conn.execute(TOPIC_LIST_FILL + " WHERE a.entry_id = ?", (entry_id,))
            _resize(conn, topic_id)
    return left_out


def _insert(conn: sqlite3.Connection, part: TableRows) -> None:
    if not part.rows:
        return
    names = ", ".join(f'"{c}"' for c in part.columns)
    marks = ", ".join("?" * len(part.columns))
    # OR IGNORE: a row the store has again (the entry imported since) is left as it is
    conn.executemany(f'INSERT OR IGNORE INTO "{part.table}"({names}) VALUES ({marks})', part.rows)
