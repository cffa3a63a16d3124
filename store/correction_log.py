"""The log of corrections that undo walks back: each correction's rows as they were
before it (:func:`snapshot`), put back by :func:`undo_last`; and the row helpers the
corrections share."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import orjson

from .connection import Database
from .deleting import set_trashed_pin
from .schema import GENERATION, TOPIC_LIST_FILL
from .similar_rows import as_json, repacked
from .topics import INSERT_ASSIGNMENT, TOPIC_MARKS, TOPIC_ROW

FitNames = Mapping[int, tuple[str, bool]]  # topic id -> the clustering's name, mixed mark
CORRECTION_ROW = "topic_id, origin, name, label, terms, entries, keywords, hidden, made_at"


def _marks(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values)) or "NULL"


def rows(conn: Any, sql: str, keys: Sequence[Any]) -> list[Any]:
    """``sql`` (with one ``IN ({})``) over ``keys``, in chunks SQLite accepts."""
    out: list[Any] = []
    keys = list(keys)
    for i in range(0, len(keys), 500):
        part = keys[i : i + 500]
        out.extend(conn.execute(sql.format(_marks(part)), part).fetchall())
    return out


def _existing(conn: Any, entry_ids: Iterable[str]) -> set[str]:
    """Those of ``entry_ids`` still in the store (an entry deleted since has nothing to
    put back)."""
    return {e for (e,) in rows(conn, "SELECT id FROM entries WHERE id IN ({})", list(entry_ids))}


def _hidden(conn: Any, topic_ids: Iterable[int]) -> set[int]:
    """Those of ``topic_ids`` hidden by a correction in force."""
    sql = "SELECT topic_id FROM topic_corrections WHERE hidden = 1 AND topic_id IN ({})"
    return {t for (t,) in rows(conn, sql, sorted(topic_ids))}


def snapshot(conn: Any, topic_ids: set[int], entry_ids: set[str]) -> dict[str, Any]:
    """The rows a correction touching ``topic_ids`` and ``entry_ids`` may change, as they
    are now (None: no row)."""
    topics: dict[str, Any] = {str(t): None for t in topic_ids}
    for row in rows(conn, f"SELECT {TOPIC_ROW} FROM topics WHERE id IN ({{}})", topic_ids):
        topics[str(row[0])] = list(row)
    assign: dict[str, Any] = dict.fromkeys(entry_ids)
    sql = "SELECT entry_id, topic_id, score, terms, similar FROM topic_assignments "
    for eid, tid, score, terms, near in rows(conn, sql + "WHERE entry_id IN ({})", entry_ids):
        assign[eid] = [tid, score, terms, as_json(near)]  # (the log is JSON)
    corr: dict[str, Any] = {str(t): None for t in topic_ids}
    sql = f"SELECT {CORRECTION_ROW} FROM topic_corrections WHERE topic_id IN ({{}})"
    for row in rows(conn, sql, topic_ids):
        corr[str(row[0])] = list(row)
    pins: dict[str, Any] = dict.fromkeys(entry_ids)
    sql = "SELECT entry_id, topic_id, pinned_at FROM entry_pins WHERE entry_id IN ({})"
    for row in rows(conn, sql, entry_ids):
        pins[row[0]] = list(row[1:])
    sql = "SELECT entry_id, topic_id, score FROM topic_also WHERE "
    also = {tuple(r) for r in rows(conn, sql + "entry_id IN ({})", entry_ids)}
    also |= {tuple(r) for r in rows(conn, sql + "topic_id IN ({})", topic_ids)}
    return {"topics": topics, "assign": assign, "corr": corr, "pins": pins, "also": sorted(also)}


def assignment_row(entry_id: str, value: Sequence[Any]) -> tuple[Any, ...]:
    """``INSERT_ASSIGNMENT``'s values for a snapshot's assignment (topic id, score,
    terms, similar entries as JSON), the similar entries packed again as stored."""
    tid, score, terms, near = value
    return entry_id, tid, score, terms, repacked(near)


class CorrectionsChanged(RuntimeError):
    """Corrections were made or undone since a re-cluster read them: its result would
    undo them, so it is not written."""


def state(conn: Any) -> str:
    """A digest of every correction in force and of the log: it changes with every
    correction made, undone or restored."""
    import hashlib

    digest = hashlib.blake2b(digest_size=16)
    for sql in (
        "SELECT count(*), coalesce(max(id), 0), coalesce(max(made_at), 0) FROM correction_log",
        f"SELECT {CORRECTION_ROW} FROM topic_corrections ORDER BY topic_id",
        "SELECT entry_id, topic_id FROM entry_pins ORDER BY entry_id",
    ):
        for row in conn.execute(sql):
            digest.update(orjson.dumps(list(row)))
        digest.update(b"\x00")
    return digest.hexdigest()


def generation(conn: Any) -> int:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (GENERATION,)).fetchone()
    return int(row[0]) if row else 0


def relist(conn: Any, entry_ids: Iterable[str]) -> None:
    """Rewrite the reader's list rows of ``entry_ids`` from their assignments, and drop
    any also row that names an entry's own topic."""
    rows = [(eid,) for eid in entry_ids]
    conn.executemany("DELETE FROM topic_list WHERE entry_id = ?", rows)
    conn.executemany(TOPIC_LIST_FILL + " WHERE a.entry_id = ?", rows)
    conn.executemany(
        "DELETE FROM topic_also WHERE entry_id = ? AND topic_id = "
        "(SELECT topic_id FROM topic_assignments WHERE entry_id = topic_also.entry_id)",
        rows,
    )


def resize(conn: Any, topic_ids: Iterable[int]) -> None:
    conn.executemany(
        "UPDATE topics SET size = (SELECT count(*) FROM topic_assignments a "
        "WHERE a.topic_id = topics.id) WHERE id = ?",
        [(t,) for t in topic_ids],
    )


class Undone(NamedTuple):
    message: str  # the message of the correction taken back
    topic_id: int | None
    # False: a re-cluster came since; the topics follow at the next (a hidden topic the
    # undo shows again is back at once)
    topics_restored: bool


def undo_last(
    db: Database, fit_names: Mapping[int, tuple[str, bool]] | None = None
) -> Undone | None:
    """Take the last correction back, in one transaction; None when the log is empty.
    After a re-cluster, a topic left without a name the user gave takes its name and
    mixed mark from ``fit_names`` (topic id -> the clustering's name and mark)."""
    with db.write() as conn:
        row = conn.execute(
            "SELECT id, message, topic_id, generation, before FROM correction_log "
            "ORDER BY id DESC LIMIT 1"
        ).fetchone()
        if row is None:
            return None
        log_id, message, topic_id, made_in, blob = row
        before = orjson.loads(blob)
        same = made_in == generation(conn)
        hidden = _hidden(conn, (int(k) for k in before["corr"]))
        for key, value in before["corr"].items():
            conn.execute("DELETE FROM topic_corrections WHERE topic_id = ?", (int(key),))
            if value is not None:
                conn.execute(
                    f"INSERT INTO topic_corrections({CORRECTION_ROW}) VALUES (?,?,?,?,?,?,?,?,?)",
                    value,
                )
        known = _existing(conn, before["pins"])
        for eid, value in before["pins"].items():
            conn.execute("DELETE FROM entry_pins WHERE entry_id = ?", (eid,))
            if eid not in known:  # deleted since: it comes back with the pin it had
                set_trashed_pin(conn, eid, value)
            elif value is not None:
                conn.execute(
                    "INSERT INTO entry_pins(entry_id, topic_id, pinned_at) VALUES (?, ?, ?)",
                    (eid, *value),
                )
        if same:
            _restore_topics(conn, before)
        else:  # the topics are the re-cluster's: only the names the user gave come back
            _rename_after_recluster(conn, before["topics"], fit_names or {})
            same = _show_unhidden(conn, before, hidden)
        conn.execute("DELETE FROM correction_log WHERE id = ?", (log_id,))
        # an undone hide lands on the topic shown again, not where its entries had gone
        sql = "SELECT id FROM topics WHERE id IN ({})"
        shown = sorted(t for (t,) in rows(conn, sql, sorted(hidden)))
    return Undone(message, shown[0] if shown else topic_id, same)


def _rename_after_recluster(
    conn: Any, before: dict[str, Any], fit_names: Mapping[int, tuple[str, bool]]
) -> None:
    """Each topic of a snapshot still in the store: the name the user had given it, else
    the clustering's name and mixed mark (a name the undone correction gave goes)."""
    for key, value in before.items():
        tid = int(key)
        if value is not None and value[2]:
            conn.execute("UPDATE topics SET name = ?, user_named = 1 WHERE id = ?", (value[1], tid))
        elif tid in fit_names:
            name, mixed = fit_names[tid]
            conn.execute(
                "UPDATE topics SET name = ?, mixed = ?, user_named = 0 WHERE id = ?",
                (name, int(mixed), tid),
            )
        else:
            conn.execute("UPDATE topics SET user_named = 0 WHERE id = ?", (tid,))


def _show_unhidden(conn: Any, before: dict[str, Any], hidden: set[int]) -> bool:
    """Each of the ``hidden`` topics the undo shows again (hidden before it, not after)
    back as the snapshot had it, with its entries (those still in the store and pinned
    nowhere else): a re-cluster since kept them in other topics, and would go on doing
    so. Whether there was one."""
    still = _hidden(conn, hidden)
    present = {t for (t,) in rows(conn, "SELECT id FROM topics WHERE id IN ({})", sorted(hidden))}
    shown = {t for t in hidden - still - present if before["topics"].get(str(t)) is not None}
    if not shown:
        return False
    known = _existing(conn, before["assign"])
    pins = dict(
        rows(conn, "SELECT entry_id, topic_id FROM entry_pins WHERE entry_id IN ({})", known)
    )
    touched = set(shown)
    for tid in shown:
        conn.execute(
            f"INSERT INTO topics({TOPIC_ROW}) VALUES ({TOPIC_MARKS})", before["topics"][str(tid)]
        )
    for eid, value in before["assign"].items():
        if value is None or value[0] not in shown or eid not in known:
            continue
        if pins.get(eid, value[0]) != value[0]:
            continue
        now = conn.execute(
            "SELECT topic_id FROM topic_assignments WHERE entry_id = ?", (eid,)
        ).fetchone()
        touched |= {now[0]} if now else set()
        conn.execute(INSERT_ASSIGNMENT, assignment_row(eid, value))
    relist(conn, before["assign"])
    resize(conn, touched)
    return True


def _restore_topics(conn: Any, before: dict[str, Any]) -> None:
    """Put the topics, assignments and also rows of a snapshot back."""
    for value in before["topics"].values():
        if value is not None:
            conn.execute(
                f"INSERT INTO topics({TOPIC_ROW}) VALUES ({TOPIC_MARKS}) "
                "ON CONFLICT(id) DO UPDATE SET name = excluded.name, "
                "user_named = excluded.user_named, anchor = excluded.anchor, "
                "keywords = excluded.keywords, cohesion = excluded.cohesion, "
                "mixed = excluded.mixed",
                value,
            )
    known = _existing(conn, before["assign"])
    for eid, value in before["assign"].items():
        if value is None:
            conn.execute("DELETE FROM topic_assignments WHERE entry_id = ?", (eid,))
        elif eid in known:
            conn.execute(INSERT_ASSIGNMENT, assignment_row(eid, value))
    topic_ids = [int(t) for t in before["topics"]]
    gone = [t for t in topic_ids if before["topics"][str(t)] is None]
    conn.executemany("DELETE FROM topics WHERE id = ?", [(t,) for t in gone])
    relist(conn, before["assign"])
    entry_ids = list(before["assign"])
    rows(conn, "DELETE FROM topic_also WHERE entry_id IN ({}) RETURNING 1", entry_ids)
    rows(conn, "DELETE FROM topic_also WHERE topic_id IN ({}) RETURNING 1", topic_ids)
    conn.executemany(
        "INSERT OR IGNORE INTO topic_also(entry_id, topic_id, score) "
        "SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM topics WHERE id = ?2) "
        "AND EXISTS (SELECT 1 FROM entries WHERE id = ?1)",
        [tuple(r) for r in before["also"]],
    )
    resize(conn, topic_ids)
