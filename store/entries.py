"""Entries: adding them (one transaction a file, known ids left as they are) and reading
them back, whole or as the light rows and texts other parts need."""

from __future__ import annotations

import itertools
import sqlite3
import time
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from . import content as _content
from .bounds import QUERY_MAX_CHARS, QUERY_MAX_WORDS, BoundError, check_query
from .connection import Database
from .models import ENTRY_COLUMNS, Content, Entry
from .origins import ORIGIN_FILE, ORIGIN_ID, add_paths
from .schema import NEWEST_FIRST
from .text import entry_text

_T = TypeVar("_T")

# ENTRY_COLUMNS as a query reads them (the origin file is a number into origin_files)
COLUMNS = ", ".join(ORIGIN_FILE if c == "origin_file" else c for c in ENTRY_COLUMNS)
# OR IGNORE: an id already stored (the same content) is left as it is
INSERT_ENTRY = (
    "INSERT OR IGNORE INTO entries("
    + ", ".join("origin_id" if c == "origin_file" else c for c in ENTRY_COLUMNS)
    + ", imported_at) VALUES ("
    + ", ".join(ORIGIN_ID if c == "origin_file" else "?" for c in ENTRY_COLUMNS)
    + ", ?)"
)


def insert(conn: sqlite3.Connection, entry: Entry, now: float) -> bool:
    """Add one entry inside the caller's write transaction; False if its id was known."""
    if conn.execute("SELECT 1 FROM entries WHERE id = ?", (entry.id,)).fetchone():
        return False
    add_paths(conn, [entry.origin_file])
    return conn.execute(INSERT_ENTRY, entry.to_row(now)).rowcount > 0


def add(
    db: Database, entries: Iterable[Entry], contents: Mapping[str, Content] | None = None
) -> tuple[list[str], int]:
    """Insert entries in one transaction; returns (ids that were new, count known).
    ``contents`` (entry id -> whole content) go in with the new entries they belong to.

    Entries are taken a batch at a time: the batch's known ids are looked up in one
    query and its new rows go in with one executemany (100,000 entries in a fraction
    of the time of a row-at-a-time insert)."""
    now = time.time()
    new: list[str] = []
    known = 0
    with db.write() as conn:
        items = iter(entries)
        while batch := tuple(itertools.islice(items, 900)):
            marks = ",".join("?" * len(batch))
            present = {
                eid
                for (eid,) in conn.execute(
                    f"SELECT id FROM entries WHERE id IN ({marks})", [e.id for e in batch]
                )
            }
            rows, paths = [], set()
            for e in batch:
                if e.id in present:  # in the store, or earlier in this batch
                    known += 1
                    continue
                present.add(e.id)
                new.append(e.id)
                rows.append(e.to_row(now))
                paths.add(e.origin_file)
            add_paths(conn, paths)  # (only a new entry's: a file of known entries adds none)
            conn.executemany(INSERT_ENTRY, rows)
        if contents:
            _content.put_many(conn, {eid: contents[eid] for eid in new if eid in contents})
    return new, known


def count(db: Database) -> int:
    return int(db.query("SELECT count(*) FROM entries")[0][0])


def one(db: Database, entry_id: str) -> Entry | None:
    rows = db.query(f"SELECT {COLUMNS} FROM entries WHERE id = ?", (entry_id,))
    return Entry.from_row(rows[0]) if rows else None


def many(db: Database, ids: Sequence[str] | None = None) -> list[Entry]:
    """Entries newest first (undated last, then in import order); ``ids`` keeps its order."""
    if ids is None:
        rows = db.query(f"SELECT {COLUMNS} FROM entries ORDER BY {NEWEST_FIRST}")
        return [Entry.from_row(r) for r in rows]
    return rows_by_id(db, COLUMNS, ids, Entry.from_row)


def rows_by_id(
    db: Database,
    columns: str,
    ids: Sequence[str],
    convert: Callable[[Any], _T],
    also: str = "",
) -> list[_T]:
    """``convert`` of the entries' ``columns`` (the first being id) for ``ids``, in the
    order given, skipping ids not stored and, given ``also`` (an SQL condition), the
    entries it does not hold for; queried 500 ids at a time."""
    condition = f" AND {also}" if also else ""
    found: dict[str, _T] = {}
    for start in range(0, len(ids), 500):
        chunk = list(ids[start : start + 500])
        marks = ",".join("?" * len(chunk))
        query = f"SELECT {columns} FROM entries WHERE id IN ({marks}){condition}"
        for r in db.query(query, chunk):
            found[r[0]] = convert(r)
    return [found[i] for i in ids if i in found]


# what an entry's text for clustering is made of (:func:`entry_text`)
_TEXT_COLUMNS = "id, title, summary, comment, content_start, title_given"


def texts(db: Database, ids: Sequence[str] | None = None) -> list[tuple[str, str]]:
    """(id, text) for every entry in import order, or for ``ids`` in that order: what
    clustering reads (:meth:`Entry.text`, each part once). Only the title, summary,
    comment and the start of the content: never source, category, feed or other
    metadata."""
    rows = (
        db.query(f"SELECT {_TEXT_COLUMNS} FROM entries ORDER BY rowid")
        if ids is None
        else rows_by_id(db, _TEXT_COLUMNS, ids, tuple)
    )
    return [
        (eid, entry_text(title, summary, comment, content, title_given=bool(given)))
        for eid, title, summary, comment, content, given in rows
    ]


def unassigned_texts(
    db: Database, ids: Sequence[str], known: Container[str] = ()
) -> list[tuple[str, str]]:
    """:func:`texts` of those of the entries ``ids`` that no topic holds, in the order
    given, ids not stored left out: what placing them reads, one query a chunk (reading
    every assignment in the store first cost each batch of new entries more as the store
    grew). The text of an entry in ``known`` is left empty: the caller has what it needs
    of it already."""
    unassigned = "id NOT IN (SELECT entry_id FROM topic_assignments)"
    # of an entry in ``known``, only its id is read (a refresh's new entries: all of them)
    wanted = [eid for eid in ids if eid not in known]
    texts = {
        eid: entry_text(t, s, c, start, title_given=bool(given))
        for eid, t, s, c, start, given in rows_by_id(
            db, _TEXT_COLUMNS, wanted, tuple, also=unassigned
        )
    }
    if len(wanted) < len(ids):
        held = [eid for eid in ids if eid in known]
        texts.update((eid, "") for (eid,) in rows_by_id(db, "id", held, tuple, also=unassigned))
    return [(eid, texts[eid]) for eid in ids if eid in texts]


def ids(db: Database) -> list[str]:
    """Every entry's id, in import order (the order of :func:`texts`)."""
    return [eid for (eid,) in db.query("SELECT id FROM entries ORDER BY rowid")]


def search(db: Database, query: str, limit: int | None = None) -> list[str]:
    """Ids of entries whose title, summary or comment contain every word of ``query``
    (case-insensitive; Chinese matched as written), newest first."""
    words = check_query(query).split()
    if not words:
        return []
    clause = " AND ".join(
        ["(title || ' ' || summary || ' ' || comment) LIKE ? ESCAPE '\\'"] * len(words)
    )
    params: list[Any] = [like_pattern(w) for w in words]
    sql = f"SELECT id FROM entries WHERE {clause} ORDER BY {NEWEST_FIRST}"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return [eid for (eid,) in db.query(sql, params)]


# The most strings a prefilter may look for: every word of the longest query, each a
# concept of many forms, stays far below SQLite's expression depth of 1,000.
PREFILTER_MAX = 2000

# Any of its alternatives; an alternative holds when each of its groups does; a group holds
# when the entry's title, summary or comment contains one of its strings (LIKE: ASCII
# letters in any case), a space in a string standing for any text (none included).
Prefilter = Sequence[Sequence[Sequence[str]]]
# (title, summary, comment) -> a rank (lower is better), or None: not a match
Rank = Callable[[str, str, str], int | None]


def like_pattern(text: str) -> str:
    """A LIKE pattern (with ESCAPE '\\') for any text holding ``text``."""
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _holds(text: str) -> tuple[str, list[str]]:
    """SQL true when the title, summary or comment holds ``text`` (a space: any text)."""
    pattern = "%".join(like_pattern(piece)[1:-1] for piece in text.split(" "))
    sql = "(title LIKE ? ESCAPE '\\' OR summary LIKE ? ESCAPE '\\' OR comment LIKE ? ESCAPE '\\')"
    return sql, [f"%{pattern}%"] * 3


def ranked(db: Database, prefilter: Prefilter, rank: Rank, limit: int | None = None) -> list[str]:
    """Ids of the entries that pass ``prefilter`` (in SQL, so that the rest are never
    read out) and that ``rank(title, summary, comment)`` then gives a rank (not None):
    lowest rank first, newest first within a rank (undated last, then in import order)."""
    ids = [eid for _, eid in ranked_pairs(db, prefilter, rank)]
    return ids if limit is None else ids[:limit]


def ranked_pairs(db: Database, prefilter: Prefilter, rank: Rank) -> list[tuple[int, str]]:
    """(rank, id) of what :func:`ranked` finds, in its order."""
    strings = [text for groups in prefilter for group in groups for text in group]
    if len(strings) > PREFILTER_MAX or any(len(t) > QUERY_MAX_CHARS for t in strings):
        # (SQLite refuses an expression deeper than 1,000 or a LIKE pattern of 50,000)
        raise BoundError(
            f"a search is at most {QUERY_MAX_WORDS} words and {QUERY_MAX_CHARS:,} characters"
        )
    alternatives: list[str] = []
    params: list[str] = []
    for groups in prefilter:
        clauses = []
        for strings in groups:
            anyof = []
            for text in strings:
                sql, values = _holds(text)
                anyof.append(sql)
                params += values
            if anyof:
                clauses.append("(" + " OR ".join(anyof) + ")")
        if clauses:
            alternatives.append("(" + " AND ".join(clauses) + ")")
    if not alternatives:
        return []
    # in import order, sorted here: SQLite would sort the candidates' whole texts
    rows = db.query(
        "SELECT id, date, title, summary, comment FROM entries "
        f"WHERE {' OR '.join(alternatives)} ORDER BY rowid",
        params,
    )
    found = []
    for eid, date, title, summary, comment in rows:
        r = rank(title, summary, comment)
        if r is not None:
            found.append((r, date or "", eid))
    found.sort(key=lambda row: row[1], reverse=True)  # newest first, undated last (stable)
    found.sort(key=lambda row: row[0])
    return [(r, eid) for r, _, eid in found]


def unassigned_ids(db: Database) -> list[str]:
    """Ids of entries in no topic, in import order."""
    rows = db.query(
        "SELECT id FROM entries WHERE id NOT IN (SELECT entry_id FROM topic_assignments) "
        "ORDER BY rowid"
    )
    return [eid for (eid,) in rows]


class EntryIdError(ValueError):
    """An entry id (or the start of one) that names no entry, or more than one."""


def resolve_id(db: Database, prefix: str, *, deleted: bool = False) -> str:
    """The one id starting with ``prefix`` (letter case ignored: ids are lower-case hex)
    among the stored entries, or (``deleted``) among those in the trash; one range read
    of the id's index. :class:`EntryIdError` when none does or several do."""
    text = prefix.strip().lower()
    where = "in the trash" if deleted else "in the store"
    if not text:
        raise EntryIdError("an entry id cannot be empty")
    if len(text) > 64 or not text.isascii() or not text.isalnum():
        raise EntryIdError(
            f"no entry with id {prefix[:40]!r} (an id is 16 hex digits, or their start)"
        )
    table, column = ("trash", "entry_id") if deleted else ("entries", "id")
    # everything from the prefix up to the first text after all it starts
    found = [
        eid
        for (eid,) in db.query(
            f"SELECT DISTINCT {column} FROM {table} WHERE {column} >= ? AND {column} < ? "
            f"ORDER BY {column} LIMIT 2",
            (text, text + "\U0010ffff"),
        )
    ]
    if not found:
        listed = "`topiclens restore-deleted --list`" if deleted else "`topiclens entries`"
        raise EntryIdError(
            f"no entry {where} has an id starting with {text!r}; {listed} lists them"
        )
    if len(found) > 1:
        (count,) = db.query(
            f"SELECT count(DISTINCT {column}) FROM {table} WHERE {column} >= ? AND {column} < ?",
            (text, text + "\U0010ffff"),
        )[0]
        raise EntryIdError(
            f"{count} entries {where} have an id starting with {text!r}; give more of it"
        )
    return found[0]
