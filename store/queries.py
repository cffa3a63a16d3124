"""The reader's queries: light rows for long lists and the counts beside them, each made
to stay fast at 100,000 entries."""

from __future__ import annotations

from collections.abc import Sequence

from . import mute
from .connection import Database
from .entries import like_pattern, rows_by_id
from .schema import NEWEST_FIRST, TOPIC_LIST_ORDER

# (id, title, source, date): one row of the reader's entry list. Plain tuples, straight
# from SQLite: a topic of thousands of rows is shown without making an object per row.
EntryRow = tuple[str, str, str, str | None]


def topic_rows(db: Database, topic_id: int, *, also: bool = False) -> list[EntryRow]:
    """A topic's rows (``also``: the rows of the entries also listed under it) but the
    muted ones (:mod:`.mute`), newest first, undated last: one range of ``topic_list``
    (``topic_also_list``), already in that order (no join, no sort), so a list of
    thousands of entries loads in milliseconds."""
    table = "topic_also_list" if also else "topic_list"
    hidden = mute.clause(db, "l.entry_id")
    sql, params = (f"AND NOT {hidden[0]} ", hidden[1]) if hidden else ("", [])
    return db.query(
        "SELECT entry_id, title, source, CASE WHEN undated THEN NULL ELSE date END "
        f"FROM {table} l WHERE topic_id = ? {sql}ORDER BY {TOPIC_LIST_ORDER}",
        (topic_id, *params),
    )


def entry_rows(db: Database, ids: Sequence[str]) -> list[EntryRow]:
    """The rows of ``ids``, in the order given."""
    return rows_by_id(db, "id, title, source, date", ids, tuple)


def topic_unread_counts(db: Database) -> dict[int, int]:
    """Unread primary members per topic id (topics with none are absent; an entry also
    listed under a topic counts only in its own, so the counts add up to the unread
    entries). Counted as the topics' sizes (the store keeps each the count of its
    primary members: no scan of the assignments, 7 ms at 100,000 entries) minus read
    members (as many rows as entries read)."""
    members = db.query("SELECT id, size FROM topics")
    read = dict(
        db.query(
            # CROSS JOIN keeps read_state the outer loop: without statistics SQLite
            # would scan every assignment instead
            "SELECT a.topic_id, count(*) FROM read_state r "
            "CROSS JOIN topic_assignments a ON a.entry_id = r.entry_id GROUP BY a.topic_id"
        )
    )
    counts = {tid: n - read.get(tid, 0) for tid, n in members}
    hidden = mute.clause(db, "a.entry_id")
    if hidden is not None:  # muted entries count for nothing
        for tid, n in db.query(
            "SELECT a.topic_id, count(*) FROM topic_assignments a WHERE "
            f"{hidden[0]} AND a.entry_id NOT IN (SELECT entry_id FROM read_state) "
            "GROUP BY a.topic_id",
            hidden[1],
        ):
            counts[tid] -= n
    return {tid: n for tid, n in counts.items() if n > 0}


def muted_counts(db: Database) -> dict[int, int]:
    """Muted primary members per topic id (topics with none are absent)."""
    hidden = mute.clause(db, "a.entry_id")
    if hidden is None:
        return {}
    return dict(
        db.query(
            f"SELECT a.topic_id, count(*) FROM topic_assignments a WHERE {hidden[0]} "
            "GROUP BY a.topic_id",
            hidden[1],
        )
    )


def river_rows(db: Database, limit: int | None = None, after: str | None = None) -> list[EntryRow]:
    """Every unread entry but the muted ones, whatever its topic, newest first (undated
    last, then in import order): the reader's "all unread" list. ``limit``: the first so
    many, read along the date index (a page of a 100,000-entry store in milliseconds, where
    the whole river takes a second); ``after``: those after that entry in this order (the
    next page)."""
    hidden = mute.clause(db, "e.id")
    sql, params = (f"AND NOT {hidden[0]} ", list(hidden[1])) if hidden else ("", [])
    unread = f"e.id NOT IN (SELECT entry_id FROM read_state) {sql}"
    if limit is None and after is None:
        return db.query(
            f"SELECT e.id, e.title, e.source, e.date FROM entries e WHERE {unread}"
            "ORDER BY e.date IS NULL, e.date DESC, e.rowid",
            params,
        )
    start: tuple[str | None, int] | None = None
    if after is not None:
        found = db.query("SELECT date, rowid FROM entries WHERE id = ?", (after,))
        if not found:
            return []
        start = found[0]
    rows: list[EntryRow] = []
    if start is None or start[0] is not None:
        # the dated part, along the date index: later pages start after the last row's place
        where, more = "e.date IS NOT NULL", []
        if start is not None:
            where = "(e.date < ? OR (e.date = ? AND e.rowid > ?))"
            more = [start[0], start[0], start[1]]
        rows = db.query(
            f"SELECT e.id, e.title, e.source, e.date FROM entries e WHERE {where} AND {unread}"
            "ORDER BY e.date DESC, e.rowid" + (" LIMIT ?" if limit is not None else ""),
            [*more, *params] + ([limit] if limit is not None else []),
        )
        if limit is not None and len(rows) >= limit:
            return rows
    # then the undated ones, in import order
    where, more = "e.date IS NULL", []
    if start is not None and start[0] is None:
        where, more = "e.date IS NULL AND e.rowid > ?", [start[1]]
    rest = None if limit is None else limit - len(rows)
    return rows + db.query(
        f"SELECT e.id, e.title, e.source, e.date FROM entries e WHERE {where} AND {unread}"
        "ORDER BY e.rowid" + (" LIMIT ?" if rest is not None else ""),
        [*more, *params] + ([rest] if rest is not None else []),
    )


def count_unassigned(db: Database) -> int:
    """Entries no topic holds yet (imported since the last clustering)."""
    return int(
        db.query(
            "SELECT count(*) FROM entries e WHERE NOT EXISTS "
            "(SELECT 1 FROM topic_assignments a WHERE a.entry_id = e.id)"
        )[0][0]
    )


def topic_profile(
    db: Database,
) -> tuple[dict[int, list[tuple[str, int]]], dict[int, dict[str, int]]]:
    """For the topic overview: per topic, its sources with counts (most first) and its
    entries per month ('YYYY-MM' -> count; undated entries are left out)."""
    sources: dict[int, list[tuple[str, int]]] = {}
    for tid, source, n in db.query(
        "SELECT a.topic_id, e.source, count(*) FROM topic_assignments a "
        "JOIN entries e ON e.id = a.entry_id WHERE e.source != '' "
        "GROUP BY a.topic_id, e.source ORDER BY a.topic_id, count(*) DESC, e.source"
    ):
        sources.setdefault(tid, []).append((source, n))
    months: dict[int, dict[str, int]] = {}
    for tid, month, n in db.query(
        "SELECT a.topic_id, substr(e.date, 1, 7), count(*) FROM topic_assignments a "
        "JOIN entries e ON e.id = a.entry_id WHERE e.date IS NOT NULL "
        "GROUP BY a.topic_id, substr(e.date, 1, 7)"
    ):
        months.setdefault(tid, {})[month] = n
    return sources, months


def filtered_ids(
    db: Database,
    *,
    topic_id: int | None = None,
    source: str | None = None,
    since: str | None = None,
    until: str | None = None,
    unread: bool = False,
    bookmarked: bool = False,
    muted: bool | None = None,
) -> list[str]:
    """Ids of the entries that pass every filter given, newest first (undated last): the
    own entries of topic ``topic_id``; a source holding ``source`` (ASCII letters in any
    case); dated ``since`` or later (an ISO date or its start: "2026", "2026-05"; undated
    entries fail); dated ``until`` or earlier (to the end of a month or year given);
    unread; bookmarked; muted (True: only the entries a mute rule hides, False: none of
    them, None: either)."""
    clauses: list[str] = []
    params: list[object] = []
    if topic_id is not None:
        clauses.append("id IN (SELECT entry_id FROM topic_assignments WHERE topic_id = ?)")
        params.append(topic_id)
    if source is not None:
        clauses.append("source LIKE ? ESCAPE '\\'")
        params.append(like_pattern(source))
    if since is not None:
        clauses.append("date >= ?")
        params.append(since)
    if until is not None:  # its start, compared as long as it is: "2026-05" takes all May
        clauses.append("substr(date, 1, ?) <= ?")
        params += [len(until), until]
    hidden = mute.clause(db, "e.id") if muted is not None else None
    if hidden is not None:
        clauses.append(hidden[0] if muted else f"NOT {hidden[0]}")
        params += hidden[1]
    elif muted:  # no rule: nothing is muted
        return []
    if unread:
        clauses.append("id NOT IN (SELECT entry_id FROM read_state)")
    if bookmarked:
        clauses.append("id IN (SELECT entry_id FROM bookmarks)")
    where = f"WHERE {' AND '.join(clauses)} " if clauses else ""
    return [
        eid
        for (eid,) in db.query(f"SELECT id FROM entries e {where}ORDER BY {NEWEST_FIRST}", params)
    ]
