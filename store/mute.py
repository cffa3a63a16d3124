"""Mute rules: entries matching one are hidden from the reader's lists and counts, kept in
the store and found by a search.

A rule is words (every one of them in the entry's title or summary, as written, ASCII
letters in any case), a source (the entry's source, in any ASCII letter case) or a feed (by
its id). The entries a words or source rule mutes are kept in ``muted_entries``: filled here
when the rule is added, and by triggers whenever an entry is written (imported, restored,
fetched, changed), so a list reads them with one index lookup a row. The triggers exist
only while such a rule does (made with the first, dropped with the last:
:func:`~.migrations.sync_mute_triggers`), so a store with no rule imports at full speed.
Feed rules are matched when read: a lookup of the entry's feed among the muted ones.
"""

import time

import orjson

from .bounds import BoundError, check_name
from .connection import Database
from .migrations import sync_mute_triggers
from .models import Record
from .schema import mute_match

KINDS: tuple[str, ...] = ("words", "source", "feed")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
MAX_FEED_ID = 2**63 - 1


class MuteRule(Record):
    """A mute rule: its id, kind (one of :data:`KINDS`), what the user gave, when, and
    how many stored entries it mutes now."""

    __slots__ = ("created_at", "kind", "muted", "rule_id", "value")

    def __init__(
        self, rule_id: int, kind: str, value: str, created_at: float, muted: int = 0
    ) -> None:
        self.rule_id = rule_id
        self.kind = kind
        self.value = value
        self.created_at = created_at
        self.muted = muted


def _lower(text: str) -> str:
    """Lower-cased as SQLite's lower() does (ASCII letters only), so the rule and the
    trigger compare the same text."""
    return text.translate(_ASCII_LOWER)


def checked(kind: str, value: str) -> tuple[str, str]:
    """(the value as stored, what the store matches) of a rule; :class:`BoundError`
    saying why when it cannot be one (a restore passes here too)."""
    if kind not in KINDS:
        raise BoundError(f"a mute rule is words, a source or a feed, not {kind[:20]!r}")
    if kind == "feed":
        text = value.strip() if isinstance(value, str) else str(value)
        if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= MAX_FEED_ID:
            raise BoundError(f"a feed is given by its id (a whole number), not {text[:40]!r}")
        return str(int(text)), str(int(text))
    value = check_name(value, "a mute rule's words" if kind == "words" else "a source")
    if kind == "words":
        words = list(dict.fromkeys(_lower(w) for w in value.split()))
        return " ".join(value.split()), orjson.dumps(words).decode()
    return value, _lower(value)


def add(db: Database, kind: str, value: str) -> tuple[MuteRule, bool]:
    """Add a rule (one that is there already is left as it is) and mute what it matches,
    in one transaction; returns the rule and whether it is new."""
    shown, match = checked(kind, value)
    if kind == "feed" and not db.query("SELECT 1 FROM feeds WHERE id = ?", (int(match),)):
        raise BoundError(f"no feed with id {match}; `topiclens feed list` lists them")
    with db.write() as conn:
        cur = conn.execute(
            "INSERT INTO mute_rules(kind, value, match, created_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(kind, match) DO NOTHING",
            (kind, shown, match, time.time()),
        )
        new = cur.rowcount > 0
        (rule_id,) = conn.execute(
            "SELECT id FROM mute_rules WHERE kind = ? AND match = ?", (kind, match)
        ).fetchone()
        if new and kind != "feed":
            sync_mute_triggers(conn)
            conn.execute(
                "INSERT OR IGNORE INTO muted_entries(entry_id, rule_id) SELECT e.id, r.id "
                f"FROM mute_rules r, entries e WHERE r.id = ? AND {mute_match('e')}",
                (rule_id,),
            )
    found = next(r for r in rules(db) if r.rule_id == rule_id)
    return found, new


def remove(db: Database, rule_id: int) -> MuteRule | None:
    """Remove a rule (its entries show again); None when there is no such rule."""
    gone = next((r for r in rules(db) if r.rule_id == rule_id), None)
    with db.write() as conn:  # (its muted rows go with it: a foreign key cascades)
        conn.execute("DELETE FROM mute_rules WHERE id = ?", (rule_id,))
        sync_mute_triggers(conn)
    return gone


def rules(db: Database) -> list[MuteRule]:
    """Every rule in the order they were made, with how many entries each mutes now."""
    feed_counts = {
        str(feed): n
        for feed, n in db.query(
            "SELECT feed_id, count(*) FROM entries WHERE feed_id IN "
            "(SELECT CAST(match AS INTEGER) FROM mute_rules WHERE kind = 'feed') "
            "GROUP BY feed_id"
        )
    }
    rows = db.query(
        "SELECT r.id, r.kind, r.value, r.created_at, r.match, "
        "(SELECT count(*) FROM muted_entries m WHERE m.rule_id = r.id) "
        "FROM mute_rules r ORDER BY r.created_at, r.id"
    )
    return [
        MuteRule(rid, kind, value, when, feed_counts.get(match, 0) if kind == "feed" else n)
        for rid, kind, value, when, match, n in rows
    ]


def clause(db: Database, column: str) -> tuple[str, list[int]] | None:
    """SQL true when the entry whose id is ``column`` (qualified by its table's alias:
    the test's own tables are ``m`` and ``fe``) is muted, and its parameters; None when no
    rule mutes anything (then a list needs no test at all)."""
    if not db.query("SELECT 1 FROM mute_rules LIMIT 1"):
        return None
    sql = f"EXISTS (SELECT 1 FROM muted_entries m WHERE m.entry_id = {column})"
    feeds = [int(m) for (m,) in db.query("SELECT match FROM mute_rules WHERE kind = 'feed'")]
    if feeds:
        marks = ",".join("?" * len(feeds))
        sql += (
            f" OR EXISTS (SELECT 1 FROM entries fe WHERE fe.id = {column} "
            f"AND fe.feed_id IN ({marks}))"
        )
        return f"({sql})", feeds
    return f"({sql})", []


def muted_ids(db: Database, among: list[str] | None = None) -> set[str]:
    """The ids of every entry a rule mutes now; with ``among``, only those of these ids (a
    short list: the detail pane's similar entries)."""
    found = clause(db, "e.id")
    if found is None or among == []:
        return set()
    sql, params = found
    if among is not None:
        sql = f"e.id IN ({','.join('?' * len(among))}) AND {sql}"
        params = [*among, *params]
    return {eid for (eid,) in db.query(f"SELECT e.id FROM entries e WHERE {sql}", params)}


def put(db: Database, items: list[tuple[str, str, float]]) -> int:
    """Add rules read from a backup, (kind, value, created_at) each already checked, in one
    transaction (those there already are left as they are); returns how many were new."""
    new = 0
    with db.write() as conn:
        for kind, value, when in items:
            shown, match = checked(kind, value)
            cur = conn.execute(
                "INSERT INTO mute_rules(kind, value, match, created_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(kind, match) DO NOTHING RETURNING id",
                (kind, shown, match, when),
            )
            row = cur.fetchone()
            if row is None:
                continue
            new += 1
            if kind != "feed":
                conn.execute(
                    "INSERT OR IGNORE INTO muted_entries(entry_id, rule_id) SELECT e.id, r.id "
                    f"FROM mute_rules r, entries e WHERE r.id = ? AND {mute_match('e')}",
                    (row[0],),
                )
        sync_mute_triggers(conn)
    return new
