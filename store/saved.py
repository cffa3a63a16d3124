"""Saved searches: a query kept under a name, shown by the reader as a list with its unread
count. Its entries are those the reader's own search (``/``, :mod:`topiclens.clustering
.search`) finds now, best first, less the entries a mute rule hides: a saved search
follows the store as entries arrive."""

import time

from . import mute
from .bounds import QUERY_MAX_CHARS, BoundError, check_name, check_query
from .connection import Database
from .models import Record


class SavedSearch(Record):
    """A saved search: its name, its query, and when it was saved."""

    __slots__ = ("created_at", "name", "query")

    def __init__(self, name: str, query: str, created_at: float) -> None:
        self.name = name
        self.query = query
        self.created_at = created_at


def checked(name: str, query: str) -> tuple[str, str]:
    """(name, query) as stored; :class:`BoundError` saying why when they cannot be (a
    restore passes here too)."""
    name = check_name(name, "a saved search's name")
    if not isinstance(query, str) or not query.strip():
        raise BoundError("a saved search needs words to look for")
    check_query(query)
    check_name(query, "a saved search's query", QUERY_MAX_CHARS)  # one line, no controls
    return name, " ".join(query.split())


def save(db: Database, name: str, query: str) -> bool:
    """Save ``query`` under ``name`` (replacing the query a search of that name had);
    returns whether the name was new."""
    name, query = checked(name, query)
    with db.write() as conn:
        had = conn.execute("SELECT 1 FROM saved_searches WHERE name = ?", (name,)).fetchone()
        conn.execute(
            "INSERT INTO saved_searches(name, query, created_at) VALUES (?, ?, ?) "
            "ON CONFLICT(name) DO UPDATE SET query = excluded.query",
            (name, query, time.time()),
        )
    return had is None


def remove(db: Database, name: str) -> bool:
    """Forget the saved search ``name``; False when there is none."""
    with db.write() as conn:
        return (
            conn.execute("DELETE FROM saved_searches WHERE name = ?", (name.strip(),)).rowcount > 0
        )


def listing(db: Database) -> list[SavedSearch]:
    """Every saved search, in the order they were saved."""
    rows = db.query("SELECT name, query, created_at FROM saved_searches ORDER BY created_at, name")
    return [SavedSearch(*r) for r in rows]


def one(db: Database, name: str) -> SavedSearch | None:
    rows = db.query(
        "SELECT name, query, created_at FROM saved_searches WHERE name = ?", (name.strip(),)
    )
    return SavedSearch(*rows[0]) if rows else None


def entry_ids(db: Database, query: str) -> list[str]:
    """The ids a saved search lists: what the reader's search finds for ``query``, best
    first, without the muted entries."""
    from topiclens.clustering.search import search  # (the reader's own search)

    found = search(db, query)  # type: ignore[arg-type]
    hidden = mute.muted_ids(db)
    return [eid for eid in found if eid not in hidden] if hidden else found


def unread_counts(db: Database) -> dict[str, int]:
    """Each saved search's unread entries (muted ones left out), by name: one search each,
    so call it from a worker on a large store."""
    read = {eid for (eid,) in db.query("SELECT entry_id FROM read_state")}
    return {
        s.name: sum(1 for eid in entry_ids(db, s.query) if eid not in read) for s in listing(db)
    }


def put(db: Database, items: list[SavedSearch]) -> tuple[int, int]:
    """Make each saved search exactly as a backup has it (checked already), in one
    transaction; returns (how many changed or were added, how many were so already)."""
    changed = unchanged = 0
    with db.write() as conn:
        for s in items:
            cur = conn.execute(
                "INSERT INTO saved_searches(name, query, created_at) VALUES (?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET query = excluded.query, "
                "created_at = excluded.created_at WHERE saved_searches.query IS NOT "
                "excluded.query OR saved_searches.created_at IS NOT excluded.created_at",
                (s.name, s.query, s.created_at),
            )
            if cur.rowcount > 0:
                changed += 1
            else:
                unchanged += 1
    return changed, unchanged
