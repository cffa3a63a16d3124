"""Topics and the assignments of entries to them, each topic's entry list (``topic_list``)
kept in step in the same transactions, the "also" memberships (an entry listed under
other topics it centrally discusses besides its primary one), and the fitted model that
places new entries."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence

import orjson

from .also_counts import ALSO_SIZE_TRIGGERS, ALSO_SIZES
from .bounds import check_name
from .connection import Database
from .models import Assignment, Topic
from .schema import TOPIC_LIST_FILL, TOPIC_LIST_ORDER
from .similar_rows import read as read_similar
from .similar_rows import stored as stored_similar

INSERT_ASSIGNMENT = (
    "INSERT OR REPLACE INTO topic_assignments(entry_id, topic_id, score, terms, similar) "
    "VALUES (?,?,?,?,?)"
)
Assignments = dict[str, tuple[int, float, list[str]]]  # entry id -> (topic id, score, terms)
# entry id -> [(other entry id, cosine)], or that list as the column keeps it already
# (:func:`.similar_rows.stored`, :func:`.similar_rows.stored_rows`)
Similar = Mapping[str, list[tuple[str, float]] | str | bytes]
Also = Sequence[tuple[str, int, float]]  # (entry id, topic id, score): also listed there

TOPIC_COLUMNS = "id, name, keywords, size, user_named, anchor, cohesion, mixed"
# the trigger of migration 7 lists each also row in topic_also_list
INSERT_ALSO = "INSERT INTO topic_also(entry_id, topic_id, score) VALUES (?, ?, ?)"
ALSO_LISTED = "topic_also_listed"  # that trigger
# every topic's list at once: along the entries table, each entry's assignment found by its
# key (at 1,000,000 entries 4 s, where the assignments' order takes 7 s of lookups)
TOPIC_LIST_FILL_ALL = (
    "INSERT INTO topic_list(topic_id, undated, date, entry_rowid, entry_id, title, source) "
    "SELECT a.topic_id, e.date IS NULL, coalesce(e.date, ''), e.rowid, e.id, e.title, e.source "
    "FROM entries e CROSS JOIN topic_assignments a ON a.entry_id = e.id"
)
# what the trigger writes, for every also row at once
ALSO_LIST_FILL = (
    "INSERT INTO topic_also_list(topic_id, undated, date, entry_rowid, entry_id, title, source) "
    "SELECT a.topic_id, e.date IS NULL, coalesce(e.date, ''), e.rowid, e.id, e.title, e.source "
    "FROM topic_also a JOIN entries e ON e.id = a.entry_id"
)


# a topic's row of ``topics``, in the order of :func:`topic_values`
TOPIC_ROW = "id, name, user_named, anchor, keywords, size, cohesion, mixed, updated_at"
TOPIC_MARKS = ", ".join("?" * len(TOPIC_ROW.split(",")))


def topic_values(t: Topic, now: float) -> tuple[object, ...]:
    """A topic's row of ``topics``, as TOPIC_ROW names its columns."""
    keywords = orjson.dumps([list(k) for k in t.keywords]).decode()
    return (
        t.id,
        t.name,
        int(t.user_named),
        t.anchor,
        keywords,
        t.size,
        t.cohesion,
        int(t.mixed),
        now,
    )


def _assignment_rows(
    assignments: Assignments, similar: Similar
) -> Iterator[tuple[str, int, float, str, str | bytes]]:
    """``INSERT_ASSIGNMENT`` values: (entry id, topic id, score, terms, similar entries
    packed as :mod:`.similar_rows` keeps them)."""
    dumps = orjson.dumps
    for eid, (tid, score, terms) in assignments.items():
        near = similar.get(eid)
        value = near if isinstance(near, str | bytes) else stored_similar(near)
        yield eid, tid, float(score), dumps(terms).decode(), value


def _topic(row: tuple[int, str, str, int, int, str | None, float | None, int]) -> Topic:
    tid, name, keywords, size, named, anchor, cohesion, mixed = row
    words = [tuple(k) for k in orjson.loads(keywords)]
    return Topic(tid, name, words, size, bool(named), anchor, cohesion, bool(mixed))


# the cohesion from which a topic is clear enough to be listed first (the reader opens on
# the first topic); the same bar on every corpus (docs/clustering.md, "The topic list's order")
CLEAR_FROM = 0.6
# clear topics (and those whose cohesion is unknown), then the other coherent ones, then
# the mixed ones: each group largest first
TOPIC_ORDER = f"mixed, coalesce(cohesion, 1.0) < {CLEAR_FROM}, size DESC, id"


def all_topics(db: Database) -> list[Topic]:
    """Every topic in the list's order: the clear ones (cohesion at least ``CLEAR_FROM``,
    or unknown) largest first, then the other coherent ones largest first, then the mixed
    ones largest first."""
    rows = db.query(f"SELECT {TOPIC_COLUMNS} FROM topics ORDER BY {TOPIC_ORDER}")
    return [_topic(r) for r in rows]


def entry_ids(db: Database, topic_id: int) -> list[str]:
    """The topic's entry ids in the reader's order (``topic_list``'s own)."""
    rows = db.query(
        f"SELECT entry_id FROM topic_list WHERE topic_id = ? ORDER BY {TOPIC_LIST_ORDER}",
        (topic_id,),
    )
    return [eid for (eid,) in rows]


def also_entry_ids(db: Database, topic_id: int) -> list[str]:
    """The ids of the entries also listed under the topic, in the reader's order."""
    rows = db.query(
        f"SELECT entry_id FROM topic_also_list WHERE topic_id = ? ORDER BY {TOPIC_LIST_ORDER}",
        (topic_id,),
    )
    return [eid for (eid,) in rows]


def also_topics(db: Database, entry_id: str) -> list[Topic]:
    """The topics the entry is also listed under (not its primary one), best score first."""
    columns = ", ".join(f"t.{c.strip()}" for c in TOPIC_COLUMNS.split(","))
    rows = db.query(
        f"SELECT {columns} FROM topic_also a JOIN topics t ON t.id = a.topic_id "
        "WHERE a.entry_id = ? ORDER BY a.score DESC, t.id",
        (entry_id,),
    )
    return [_topic(r) for r in rows]


def _insert_also(conn: sqlite3.Connection, also: Also, live: set[int], placed: Assignments) -> None:
    """Write the also rows whose topic is in ``live`` and whose entry is in ``placed``, in
    a topic other than the one ``placed`` gives it (a row given twice: the last one)."""
    rows = {
        (eid, tid): float(score)
        for eid, tid, score in also
        if tid in live and eid in placed and placed[eid][0] != tid
    }
    conn.executemany(INSERT_ALSO, [(eid, tid, score) for (eid, tid), score in rows.items()])


def assignments(db: Database) -> dict[str, int]:
    """Entry id -> topic id, for every entry in a topic."""
    return dict(db.query("SELECT entry_id, topic_id FROM topic_assignments"))


def assignment(db: Database, entry_id: str) -> Assignment | None:
    rows = db.query(
        "SELECT topic_id, score, terms FROM topic_assignments WHERE entry_id = ?", (entry_id,)
    )
    if not rows:
        return None
    topic_id, score, terms = rows[0]
    return Assignment(topic_id, score, orjson.loads(terms))


def bookmark_topic_ids(db: Database) -> dict[str, int]:
    """Bookmarked entry id -> its topic id, for the bookmarks whose entry is in a topic."""
    return dict(
        db.query(
            "SELECT a.entry_id, a.topic_id FROM topic_assignments a "
            "JOIN bookmarks b ON b.entry_id = a.entry_id"
        )
    )


def similar(db: Database, entry_id: str) -> list[tuple[str, float]]:
    """The entry's most similar entries, best first: (entry id, cosine)."""
    rows = db.query("SELECT similar FROM topic_assignments WHERE entry_id = ?", (entry_id,))
    return read_similar(rows[0][0]) if rows else []


def replace(
    db: Database,
    topics: Sequence[Topic],
    assigned: Assignments,
    near: Similar | None = None,
    *,
    model: tuple[str, bytes] | None = None,
    also: Also | None = None,
    corrections: str | None = None,
) -> None:
    """Replace the whole clustering result in one transaction (see
    :meth:`topiclens.store.Store.replace_topics`)."""
    from .correction_log import CorrectionsChanged, state

    now = time.time()
    with db.write(check_references=False) as conn:
        if corrections is not None and state(conn) != corrections:
            raise CorrectionsChanged("corrections were made while the topics were grouped")
        if near is None:  # keep each entry's similar entries as they are
            near = {
                eid: read_similar(value)
                for eid, value in conn.execute(
                    "SELECT entry_id, similar FROM topic_assignments WHERE similar != '[]'"
                )
            }
        kept_ids = [t.id for t in topics]
        marks = ",".join("?" * len(kept_ids)) or "NULL"
        for name in ALSO_SIZE_TRIGGERS:  # (the counts are set once, below)
            conn.execute(f"DROP TRIGGER IF EXISTS {name}")
        conn.execute("DELETE FROM topic_assignments")
        # the list first: its rows are then gone when the delete trigger looks for them
        conn.execute("DELETE FROM topic_also_list")
        conn.execute("DELETE FROM topic_also")
        conn.execute(f"DELETE FROM topics WHERE id NOT IN ({marks})", kept_ids)
        for t in topics:
            conn.execute(
                f"INSERT INTO topics({TOPIC_ROW}) VALUES ({TOPIC_MARKS}) ON CONFLICT(id) DO UPDATE "
                "SET name = CASE WHEN topics.user_named THEN topics.name ELSE excluded.name END, "
                "anchor = excluded.anchor, keywords = excluded.keywords, "
                "size = excluded.size, cohesion = excluded.cohesion, mixed = excluded.mixed, "
                "updated_at = excluded.updated_at",
                topic_values(t, now),
            )
        conn.executemany(INSERT_ASSIGNMENT, _assignment_rows(assigned, near))
        # an entry deleted while the clustering ran (the checks are off): no row of it stays
        conn.execute("DELETE FROM topic_assignments WHERE entry_id NOT IN (SELECT id FROM entries)")
        conn.execute("DELETE FROM topic_list")
        conn.execute(TOPIC_LIST_FILL_ALL)
        if also:
            # the list trigger's row-by-row lookups cost over a second at 100,000 entries:
            # off while the rows go in, the list filled in one statement (the same rows)
            (trigger,) = conn.execute(
                "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?",
                (ALSO_LISTED,),
            ).fetchone()
            conn.execute(f"DROP TRIGGER {ALSO_LISTED}")
            _insert_also(conn, also, set(kept_ids), assigned)
            conn.execute("DELETE FROM topic_also WHERE entry_id NOT IN (SELECT id FROM entries)")
            conn.execute(ALSO_LIST_FILL)
            conn.execute(trigger)
        # each topic's size counted from its rows, whatever the caller said: the reader's
        # unread counts are the sizes less the entries read
        conn.execute(
            "UPDATE topics SET size = (SELECT count(*) FROM topic_assignments a "
            "WHERE a.topic_id = topics.id)"
        )
        conn.execute(ALSO_SIZES)
        for sql in ALSO_SIZE_TRIGGERS.values():
            conn.execute(sql)
        if model is not None:
            put_model(conn, *model)
        # undo of a correction made before this restores no assignment it replaced
        conn.execute(
            "INSERT INTO meta(key, value) VALUES ('topics.generation', '1') ON CONFLICT(key) "
            "DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )


def add_assignments(
    db: Database, assigned: Assignments, near: Similar | None = None, *, also: Also | None = None
) -> list[str]:
    """Put entries into existing topics and update the topics' sizes, in one transaction;
    returns the ids whose topic is gone (see :meth:`topiclens.store.Store.add_assignments`)."""
    also = also or ()
    with db.write() as conn:
        wanted = list({tid for tid, _, _ in assigned.values()} | {tid for _, tid, _ in also})
        marks = ",".join("?" * len(wanted)) or "NULL"
        found = conn.execute(f"SELECT id FROM topics WHERE id IN ({marks})", wanted)
        live = {tid for (tid,) in found}
        orphans = [eid for eid, (tid, _, _) in assigned.items() if tid not in live]
        if orphans:
            assigned = {eid: a for eid, a in assigned.items() if a[0] in live}
        conn.executemany(INSERT_ASSIGNMENT, _assignment_rows(assigned, near or {}))
        rows = [(eid,) for eid in assigned]
        conn.executemany("DELETE FROM topic_list WHERE entry_id = ?", rows)
        conn.executemany(TOPIC_LIST_FILL + " WHERE a.entry_id = ?", rows)
        # a placed entry's also rows are those given now, never its new primary topic
        conn.executemany("DELETE FROM topic_also WHERE entry_id = ?", rows)
        _insert_also(conn, also, live, assigned)
        conn.execute(
            "UPDATE topics SET size = (SELECT count(*) FROM topic_assignments a "
            "WHERE a.topic_id = topics.id)"
        )
    return orphans


def rename(db: Database, topic_id: int, name: str) -> bool:
    """Give the topic the user's ``name`` (:class:`.bounds.BoundError` for one that cannot
    be a name); False when there is no such topic."""
    name = check_name(name, "a topic name", controls=True)
    with db.write() as conn:
        cur = conn.execute(
            "UPDATE topics SET name = ?, user_named = 1, updated_at = ? WHERE id = ?",
            (name, time.time(), topic_id),
        )
        return cur.rowcount > 0


def model(db: Database) -> tuple[str, bytes] | None:
    """(version, blob) of the fitted topic model, if any."""
    rows = db.query("SELECT version, model FROM topic_model WHERE id = 1")
    if not rows:
        return None
    version, blob = rows[0]
    return version, blob


def put_model(conn: sqlite3.Connection, version: str, blob: bytes) -> None:
    # the old model deleted first: its pages then take the new one (a replace writes the
    # new one before it frees the old, which leaves the model's size in free pages)
    conn.execute("DELETE FROM topic_model")
    conn.execute(
        "INSERT INTO topic_model(id, version, created_at, model) VALUES (1, ?, ?, ?)",
        (version, time.time(), blob),
    )
