"""The reader's corrections to the topics, as data: what is in force, each correction
written in one transaction, and the log that undo walks back (:mod:`.correction_log`, a
module of its own as every store module stays under 400 lines).

- ``topic_corrections``: a topic the user shaped (``origin``: "merge", "split", "terms"
  for one made from search terms, "hide" for one only hidden, "pin" for one the user
  pinned entries to), with the entries it holds (which a re-cluster keeps together; for
  "pin", the entries it had, by which a re-cluster knows it), the terms that gather
  entries into it, the name the user gave, and whether it is hidden (a hidden topic has
  no row in ``topics``: its correction keeps its name and keywords until it is shown);
- ``entry_pins``: an entry the user moved, and the topic it stays in;
- ``correction_log``: each correction's message and the rows it changed as they were
  before (``before``), so undo puts them back. A re-cluster renumbers nothing but replaces
  every assignment (``topics.generation``, counted by :func:`.topics.replace`): undoing a
  correction made before one restores the corrections themselves, and the topics follow
  at the next re-cluster.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import orjson

from .bounds import check_name
from .connection import Database
from .correction_log import (
    CORRECTION_ROW,
    generation,
    relist,
    resize,
    snapshot,
)
from .correction_log import (
    rows as select_in,
)
from .models import Problem, Topic
from .reading import BOM
from .similar_rows import repacked
from .topics import INSERT_ASSIGNMENT, TOPIC_MARKS, TOPIC_ROW, Assignments, topic_values

LOG_KEPT = 200  # corrections undo can walk back

ORIGINS = ("merge", "split", "terms", "hide", "pin")


class TopicCorrection(NamedTuple):
    """A topic the user shaped: how (``origin``), the name they gave (None: the
    clustering's), the terms that gather entries into it, the entries it holds, its
    keywords when last shown, and whether it is hidden."""

    topic_id: int
    origin: str
    name: str | None = None
    label: str = ""  # the topic's name when it was last shown (a hidden one's, to list it)
    terms: Sequence[str] = ()
    entries: Sequence[str] = ()
    keywords: Sequence[tuple[str, float]] = ()
    hidden: bool = False
    made_at: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "topic_id": self.topic_id,
            "origin": self.origin,
            "name": self.name,
            "label": self.label,
            "terms": list(self.terms),
            "entries": list(self.entries),
            "keywords": [[w, v] for w, v in self.keywords],
            "hidden": self.hidden,
            "made_at": self.made_at,
        }

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> TopicCorrection:
        """The correction :meth:`to_json` wrote; ValueError, naming the field, when
        ``value`` is not one (:mod:`.correction_json`)."""
        from .correction_json import correction

        return correction(value, 1)


class Corrections(NamedTuple):
    """Every correction in force: the shaped topics (by id), the pinned entries and the
    names the user gave topics (by id: the name and the topic's entries)."""

    topics: dict[int, TopicCorrection]
    pins: dict[str, int]  # entry id -> the topic it stays in
    names: dict[int, tuple[str, list[str]]] = {}  # noqa: RUF012 (never changed in place)

    def hidden(self) -> list[TopicCorrection]:
        return [c for c in self.topics.values() if c.hidden]

    def is_empty(self) -> bool:
        return not self.topics and not self.pins and not self.names

    def to_json(self) -> dict[str, Any]:
        return {
            "topics": [c.to_json() for c in self.topics.values()],
            "pins": [{"entry_id": e, "topic_id": t} for e, t in self.pins.items()],
            "names": [
                {"topic_id": t, "name": name, "entries": entries}
                for t, (name, entries) in self.names.items()
            ],
        }


@dataclass(slots=True)
class Plan:
    """One correction: every row it writes, applied in one transaction by :func:`apply`.
    Topics left with no entry (and not given in ``topics``) are deleted."""

    message: str  # what changed, one line: the log's, and the caller's
    topic_id: int | None  # the topic to show afterwards
    topics: list[Topic] = field(default_factory=list)  # rows written as given
    drop_topics: list[int] = field(default_factory=list)
    assign: Assignments = field(default_factory=dict)  # entry id -> (topic, score, terms)
    corrections: list[TopicCorrection] = field(default_factory=list)  # rows written
    drop_corrections: list[int] = field(default_factory=list)
    pins: dict[str, int] = field(default_factory=dict)
    unpin: list[str] = field(default_factory=list)
    # topic id -> its entries as the correction read them: applied only if still so
    expect: dict[int, list[str]] = field(default_factory=dict)


class CorrectionConflict(ValueError):
    """A topic a correction read changed before it was written (another reader or
    process corrected it, or a re-cluster replaced it): nothing was written."""


# --- reading ----------------------------------------------------------------------------


def _correction(row: Sequence[Any]) -> TopicCorrection:
    tid, origin, name, label, terms, entries, keywords, hidden, made_at = row
    words = [(str(w), float(v)) for w, v in orjson.loads(keywords)]
    return TopicCorrection(
        tid,
        origin,
        name,
        label,
        orjson.loads(terms),
        orjson.loads(entries),
        words,
        bool(hidden),
        made_at,
    )


def in_force(db: Database) -> Corrections:
    """Every correction in force (shaped topics in the order they were made)."""
    rows = db.query(f"SELECT {CORRECTION_ROW} FROM topic_corrections ORDER BY made_at, topic_id")
    pins = db.query("SELECT entry_id, topic_id FROM entry_pins ORDER BY pinned_at, entry_id")
    names: dict[int, tuple[str, list[str]]] = {}
    for tid, name, eid in db.query(
        "SELECT t.id, t.name, a.entry_id FROM topics t LEFT JOIN topic_assignments a "
        "ON a.topic_id = t.id WHERE t.user_named ORDER BY t.id, a.entry_id"
    ):
        names.setdefault(tid, (name, []))[1].extend([eid] if eid else [])
    return Corrections({r[0]: _correction(r) for r in rows}, dict(pins), names)


def has_any(db: Database) -> bool:
    """Whether any correction is in force (one cheap read: most stores have none)."""
    rows = db.query(
        "SELECT EXISTS(SELECT 1 FROM topic_corrections) OR EXISTS(SELECT 1 FROM entry_pins)"
    )
    return bool(rows[0][0])


def last_logged(db: Database) -> tuple[int, str] | None:
    """(log id, message) of the correction undo would take back, if any."""
    rows = db.query("SELECT id, message FROM correction_log ORDER BY id DESC LIMIT 1")
    return (rows[0][0], rows[0][1]) if rows else None


# --- writing ----------------------------------------------------------------------------


def _write_topic(conn: Any, t: Topic, now: float) -> None:
    conn.execute(
        f"INSERT INTO topics({TOPIC_ROW}) VALUES ({TOPIC_MARKS}) ON CONFLICT(id) DO UPDATE "
        "SET name = excluded.name, user_named = excluded.user_named, anchor = excluded.anchor, "
        "keywords = excluded.keywords, cohesion = excluded.cohesion, mixed = excluded.mixed, "
        "updated_at = excluded.updated_at",
        topic_values(t, now),
    )


def _write_correction(conn: Any, c: TopicCorrection) -> None:
    conn.execute(
        f"INSERT OR REPLACE INTO topic_corrections({CORRECTION_ROW}) VALUES (?,?,?,?,?,?,?,?,?)",
        (
            c.topic_id,
            c.origin,
            c.name,
            c.label,
            orjson.dumps(list(c.terms)).decode(),
            orjson.dumps(list(c.entries)).decode(),
            orjson.dumps([list(k) for k in c.keywords]).decode(),
            int(c.hidden),
            c.made_at,
        ),
    )


def apply(db: Database, plan: Plan) -> None:
    """Write ``plan`` in one transaction, with its log row (the touched rows as they were).
    Every name the user gave passes :func:`.bounds.check_name` first (a
    :class:`.bounds.BoundError` otherwise, and nothing is written)."""
    for t in plan.topics:
        if t.user_named:
            check_name(t.name, "a topic name", controls=True)
    for c in plan.corrections:
        if c.name is not None:
            check_name(c.name, "a topic name", controls=True)
    now = time.time()
    with db.write() as conn:
        for tid, entries in plan.expect.items():
            exists = conn.execute("SELECT 1 FROM topics WHERE id = ?", (tid,)).fetchone()
            now_in = conn.execute(
                "SELECT entry_id FROM topic_assignments WHERE topic_id = ?", (tid,)
            ).fetchall()
            if exists is None or {e for (e,) in now_in} != set(entries):
                raise CorrectionConflict(
                    f"topic {tid} changed while this correction was being made (corrected "
                    "elsewhere, or grouped again); nothing was changed: look at it again"
                )
        entry_ids = set(plan.assign) | set(plan.pins) | set(plan.unpin)
        old = select_in(
            conn,
            "SELECT DISTINCT topic_id FROM topic_assignments WHERE entry_id IN ({})",
            entry_ids,
        )
        topic_ids = {t for (t,) in old} | {t.id for t in plan.topics} | set(plan.drop_topics)
        topic_ids |= {tid for tid, _, _ in plan.assign.values()} | set(plan.pins.values())
        topic_ids |= {c.topic_id for c in plan.corrections} | set(plan.drop_corrections)
        before = snapshot(conn, topic_ids, entry_ids)
        for t in plan.topics:
            _write_topic(conn, t, now)
        conn.executemany(
            INSERT_ASSIGNMENT,
            [
                (eid, tid, float(score), orjson.dumps(terms).decode(), "[]")
                for eid, (tid, score, terms) in plan.assign.items()
            ],
        )
        # an entry moved keeps its similar entries (they do not depend on its topic)
        for eid, a in before["assign"].items():
            if a is not None and eid in plan.assign:
                conn.execute(
                    "UPDATE topic_assignments SET similar = ? WHERE entry_id = ?",
                    (repacked(a[3]), eid),
                )
        relist(conn, plan.assign)
        for tid in plan.drop_topics:
            conn.execute("DELETE FROM topics WHERE id = ?", (tid,))
        resize(conn, topic_ids)
        kept = {t.id for t in plan.topics}
        for tid in topic_ids - kept:
            conn.execute("DELETE FROM topics WHERE id = ? AND size = 0", (tid,))
        for c in plan.corrections:
            _write_correction(conn, c)
        conn.executemany(
            "DELETE FROM topic_corrections WHERE topic_id = ?",
            [(t,) for t in plan.drop_corrections],
        )
        conn.executemany("DELETE FROM entry_pins WHERE entry_id = ?", [(e,) for e in plan.unpin])
        conn.executemany(
            "INSERT OR REPLACE INTO entry_pins(entry_id, topic_id, pinned_at) VALUES (?, ?, ?)",
            [(e, t, now) for e, t in plan.pins.items()],
        )
        if plan.topics:  # ids a correction made are never given to another topic
            conn.execute(
                "INSERT INTO meta(key, value) VALUES ('clustering.max_topic_id', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = "
                "max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))",
                (str(max(t.id for t in plan.topics)),),
            )
        conn.execute(
            "INSERT INTO correction_log(made_at, message, topic_id, generation, before) "
            "VALUES (?, ?, ?, ?, ?)",
            (now, plan.message, plan.topic_id, generation(conn), orjson.dumps(before).decode()),
        )
        conn.execute(
            "DELETE FROM correction_log WHERE id <= (SELECT max(id) FROM correction_log) - ?",
            (LOG_KEPT,),
        )


def forget(db: Database, topic_ids: Sequence[int]) -> None:
    with db.write() as conn:
        conn.executemany(
            "DELETE FROM topic_corrections WHERE topic_id = ?", [(t,) for t in topic_ids]
        )


NAMED_TOPICS = "clustering.named_topics"  # the clustering's record of names given


def put(db: Database, corr: Corrections) -> int:
    """Write ``corr``'s rows (a restore) and return how many changed: a row already as
    given is not counted, so a second restore of one backup writes nothing. A pin of an
    entry not in the store is left out; a name goes on its topic, or (the topic gone)
    into the clustering's record of names, which brings it back by its entries. The log
    of corrections is emptied when anything changed: undo never takes back a restore."""
    changed = 0
    with db.write() as conn:
        for c in corr.topics.values():
            now = conn.execute(
                f"SELECT {CORRECTION_ROW} FROM topic_corrections WHERE topic_id = ?", (c.topic_id,)
            ).fetchone()
            if now is None or _correction(now) != c:
                _write_correction(conn, c)
                changed += 1
        known = {
            e for (e,) in select_in(conn, "SELECT id FROM entries WHERE id IN ({})", corr.pins)
        }
        had = dict(
            select_in(
                conn, "SELECT entry_id, topic_id FROM entry_pins WHERE entry_id IN ({})", corr.pins
            )
        )
        pins = [(e, t, time.time()) for e, t in corr.pins.items() if e in known and had.get(e) != t]
        conn.executemany(
            "INSERT OR REPLACE INTO entry_pins(entry_id, topic_id, pinned_at) VALUES (?, ?, ?)",
            pins,
        )
        changed += len(pins) + _put_names(conn, corr.names)
        ids = [*corr.topics, *corr.pins.values(), *corr.names]
        if ids:  # the restored ids are never given to another topic
            conn.execute(
                "INSERT INTO meta(key, value) VALUES ('clustering.max_topic_id', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = "
                "max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))",
                (str(max(ids)),),
            )
        if changed:
            conn.execute("DELETE FROM correction_log")
    return changed


def _put_names(conn: Any, names: dict[int, tuple[str, list[str]]]) -> int:
    """Each name on its topic, or in the record of names when the topic is gone; how
    many changed."""
    changed = 0
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (NAMED_TOPICS,)).fetchone()
    try:
        record = orjson.loads(row[0]) if row else {}
    except orjson.JSONDecodeError:
        record = {}
    for tid, (name, entries) in names.items():
        now = conn.execute("SELECT name, user_named FROM topics WHERE id = ?", (tid,)).fetchone()
        if now is not None:
            if tuple(now) != (name, 1):
                conn.execute("UPDATE topics SET name = ?, user_named = 1 WHERE id = ?", (name, tid))
                changed += 1
        elif record.get(str(tid)) != {"name": name, "entries": entries}:
            record[str(tid)] = {"name": name, "entries": entries}
            changed += 1
    if changed:
        conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (NAMED_TOPICS, orjson.dumps(record, option=orjson.OPT_SORT_KEYS).decode()),
        )
    return changed


def from_json(value: Any) -> Corrections:
    """The corrections :meth:`Corrections.to_json` wrote; ValueError, naming the field,
    when ``value`` is not that (:mod:`.correction_json`)."""
    from .correction_json import corrections

    return corrections(value)


def restore(db: Database, data: bytes, display: str) -> tuple[int, Problem | None]:
    """Put back the corrections of a JSON export's bytes ``data`` (a restore): how many
    rows were written, and the problem when they cannot be read (then none is)."""
    if b'"corrections"' not in data:
        return 0, None
    try:
        doc = orjson.loads(data.removeprefix(BOM))
    except orjson.JSONDecodeError:  # the export's own problem is reported already
        return 0, None
    if not isinstance(doc, dict) or "corrections" not in doc:
        return 0, None
    try:
        corr = from_json(doc["corrections"])
    except ValueError as exc:
        return 0, Problem(display, 0, f"corrections: {exc}; none were restored")
    return put(db, corr), None
