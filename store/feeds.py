"""Feeds: subscriptions, what each fetch found, and the listing with entry counts.

A feed's row outlives its subscription: ``remove`` sets ``removed_at`` and keeps every
entry (a bookmarked one above all); adding the same URL again takes the row back, so its
entries are known and not fetched as new. What one fetch found is written by
:func:`record` in one transaction with the feed's new and updated entries: the store is
never left half-written, and a fetch that failed keeps every entry and stores its error.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from . import feed_entries as _feed_entries
from .connection import Database
from .feed_entries import FeedItem, Written
from .models import Feed

NAME_MAX_CHARS = 200  # a feed's name: one line, at most this long

_COLUMNS = (
    "id, url, title, name, folder, site_url, etag, last_modified, status, error, "
    "last_checked, last_ok, failures, retry_until, added_at, removed_at"
)
# entries and unread entries per feed, of every feed or of one (the partial index on
# (feed_id, feed_key) serves it): one feed shown counts its own entries alone
_COUNTS = (
    "SELECT e.feed_id, count(*), count(*) - count(r.entry_id) FROM entries e "
    "LEFT JOIN read_state r ON r.entry_id = e.id WHERE {} GROUP BY e.feed_id"
)


def check_name(name: str) -> str:
    """A feed's name as given, trimmed; ValueError saying why when it is none: blank,
    more than one line, or longer than :data:`NAME_MAX_CHARS`."""
    text = name.strip()
    if not text:
        raise ValueError("a feed's name cannot be blank")
    if len(text.splitlines()) > 1 or any(ch in text for ch in "\r\n\x0b\x0c\x85\u2028\u2029"):
        raise ValueError("a feed's name is one line")
    if len(text) > NAME_MAX_CHARS:
        raise ValueError(f"a feed's name is at most {NAME_MAX_CHARS} characters, not {len(text)}")
    if any(ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 for ch in text):
        raise ValueError("a feed's name cannot hold control characters")
    return text


def _feed(row: Sequence[object], counts: dict[int, tuple[int, int]]) -> Feed:
    entries, unread = counts.get(int(row[0]), (0, 0))  # type: ignore[call-overload]
    # the columns are the dataclass's fields, in its order
    return Feed(*row, entries=entries, unread=unread)  # type: ignore[arg-type]


def _counts(db: Database, feed_id: int | None = None) -> dict[int, tuple[int, int]]:
    """(entries, unread) by feed id: every feed's, or ``feed_id``'s alone."""
    if feed_id is None:
        rows = db.query(_COUNTS.format("e.feed_id IS NOT NULL"))
    else:
        rows = db.query(_COUNTS.format("e.feed_id = ?"), (feed_id,))
    return {fid: (n, unread) for fid, n, unread in rows}


def listing(db: Database, ids: Sequence[int] | None = None) -> list[Feed]:
    """The subscribed feeds (or those of ``ids`` among them), in the order they were
    added, each with its entry and unread counts."""
    rows = db.query(f"SELECT {_COLUMNS} FROM feeds WHERE removed_at IS NULL ORDER BY id")
    counts = _counts(db)
    feeds = [_feed(r, counts) for r in rows]
    if ids is None:
        return feeds
    wanted = set(ids)
    return [f for f in feeds if f.id in wanted]


def one(db: Database, feed_id: int) -> Feed | None:
    """The feed ``feed_id``, subscribed or not."""
    rows = db.query(f"SELECT {_COLUMNS} FROM feeds WHERE id = ?", (feed_id,))
    if not rows:
        return None
    return _feed(rows[0], _counts(db, feed_id))


def by_url(db: Database, url: str) -> Feed | None:
    """The subscribed feed at ``url``, else the last removed one that was."""
    rows = db.query(
        f"SELECT {_COLUMNS} FROM feeds WHERE url = ? ORDER BY removed_at IS NOT NULL, id DESC",
        (url,),
    )
    return _feed(rows[0], _counts(db, rows[0][0])) if rows else None


def add(
    db: Database, url: str, *, name: str | None = None, folder: str = "", title: str = ""
) -> tuple[Feed, bool]:
    """Subscribe to ``url``: a new feed, or the one that was at that URL (removed, or
    gone: fetched again from now on). Returns the feed and whether it was subscribed
    already (then only a ``name`` or ``folder`` given changes)."""
    if name is not None:
        name = check_name(name)
    now = time.time()
    with db.write() as conn:
        found = conn.execute(
            "SELECT id, removed_at IS NULL AND status != 'gone' FROM feeds WHERE url = ? "
            "ORDER BY removed_at IS NOT NULL, id DESC LIMIT 1",
            (url,),
        ).fetchone()
        if found is None:
            feed_id = conn.execute(
                "INSERT INTO feeds(url, title, name, folder, added_at) VALUES (?, ?, ?, ?, ?)",
                (url, title, name, folder, now),
            ).lastrowid
            already = False
        else:
            feed_id, already = int(found[0]), bool(found[1])
            conn.execute(
                "UPDATE feeds SET removed_at = NULL, status = CASE WHEN status = 'gone' "
                "THEN 'ok' ELSE status END, error = CASE WHEN status = 'gone' THEN NULL "
                "ELSE error END, retry_until = NULL, name = coalesce(?, name), "
                "folder = CASE WHEN ? != '' THEN ? ELSE folder END WHERE id = ?",
                (name, folder, folder, feed_id),
            )
        if name is not None:
            _feed_entries.set_source(conn, int(feed_id), name)  # type: ignore[arg-type]
    feed = one(db, int(feed_id))  # type: ignore[arg-type]
    assert feed is not None
    return feed, already


def remove(db: Database, feed_id: int) -> bool:
    """Unsubscribe: the feed is no longer fetched or listed; its entries all stay."""
    with db.write() as conn:
        cur = conn.execute(
            "UPDATE feeds SET removed_at = ? WHERE id = ? AND removed_at IS NULL",
            (time.time(), feed_id),
        )
        return cur.rowcount > 0


def rename(db: Database, feed_id: int, name: str) -> bool:
    """Give a subscribed feed the user's name (:func:`check_name` says what a name is);
    its entries show it as their source."""
    name = check_name(name)
    with db.write() as conn:
        cur = conn.execute(
            "UPDATE feeds SET name = ? WHERE id = ? AND removed_at IS NULL", (name, feed_id)
        )
        if cur.rowcount:
            _feed_entries.set_source(conn, feed_id, name)
        return cur.rowcount > 0


@dataclass(frozen=True, slots=True)
class FeedCheck:
    """What one fetch of a feed found, for :func:`record`.

    ``worked``: a 200 that parsed as a feed, or a 304; then the validators are stored as
    given (from a 304 too), the status is ok and ``moved_to`` (every hop a permanent
    redirect) becomes the feed's URL. Else ``error`` says what went wrong, the status is
    ``gone`` (``gone``: a 410) or ``error``, the validators and entries are kept, and
    ``retry_until`` is when the server asked us to come back (None: it did not)."""

    checked_at: float
    worked: bool
    error: str | None = None
    gone: bool = False
    moved_to: str | None = None
    etag: str | None = None
    last_modified: str | None = None
    retry_until: float | None = None
    title: str | None = None  # the feed's own title, from a 200
    site_url: str | None = None
    source: str | None = None  # what its entries show as their source, when it changed
    items: Sequence[FeedItem] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True)
class Recorded:
    """What :func:`record` wrote: the new and updated entries, and whether the feed's
    URL moved (False when the new URL is another subscribed feed's: it keeps its own)."""

    written: Written
    moved: bool = False


def record(db: Database, feed_id: int, check: FeedCheck) -> Recorded:
    """Store one fetch of ``feed_id`` and its entries in one transaction."""
    with db.write() as conn:
        moved = False
        if check.worked:
            moved = _move(conn, feed_id, check.moved_to)
            conn.execute(
                "UPDATE feeds SET status = 'ok', error = NULL, failures = 0, retry_until = NULL, "
                "last_checked = ?, last_ok = ?, etag = ?, last_modified = ?, "
                "title = coalesce(?, title), site_url = coalesce(?, site_url) WHERE id = ?",
                (
                    check.checked_at,
                    check.checked_at,
                    check.etag,
                    check.last_modified,
                    check.title,
                    check.site_url,
                    feed_id,
                ),
            )
        else:
            conn.execute(
                "UPDATE feeds SET status = ?, error = ?, failures = failures + 1, "
                "retry_until = ?, last_checked = ? WHERE id = ?",
                (
                    "gone" if check.gone else "error",
                    check.error or "failed",
                    check.retry_until,
                    check.checked_at,
                    feed_id,
                ),
            )
        if check.source is not None:
            _feed_entries.set_source(conn, feed_id, check.source)
        written = _feed_entries.write(conn, feed_id, check.items, check.checked_at)
    return Recorded(written, moved)


def _move(conn: sqlite3.Connection, feed_id: int, url: str | None) -> bool:
    if not url:
        return False
    taken = conn.execute(
        "SELECT 1 FROM feeds WHERE url = ? AND id != ? AND removed_at IS NULL", (url, feed_id)
    ).fetchone()
    if taken:
        return False
    conn.execute("UPDATE feeds SET url = ? WHERE id = ?", (url, feed_id))
    return True


def row_for(conn: sqlite3.Connection, url: str, title: str, now: float) -> int:
    """Inside the caller's transaction: the id of the feed at ``url`` (subscribed, else
    the last removed one), or of a row made for it, unsubscribed: a restored entry's feed."""
    found = conn.execute(
        "SELECT id FROM feeds WHERE url = ? ORDER BY removed_at IS NOT NULL, id DESC LIMIT 1",
        (url,),
    ).fetchone()
    if found is not None:
        return int(found[0])
    cur = conn.execute(
        "INSERT INTO feeds(url, title, added_at, removed_at) VALUES (?, ?, ?, ?)",
        (url, title, now, now),
    )
    return int(cur.lastrowid or 0)
