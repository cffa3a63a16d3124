"""Entries from feeds: a parsed feed's entries made into store entries, and written.

An entry of a subscribed feed is known by its key inside that feed (guid or id, else
link, else a hash of its content; :mod:`.feed_parse` makes it). Fetched again it is not
new; when its title, summary, link, author or content changed it is updated in place,
keeping its id and with it its read state, bookmark, note, topic and pin. Its cached
tokens are dropped (its text changed) and its rows in the topic lists follow it.

A feed file imported from disk (``topiclens import feed.xml``) has no feed: its entries
are known by their key inside the file's feed (scoped by the feed's home page, else the
file), and, like every import, an entry already stored is left as it is.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from . import content as _content
from .entries import INSERT_ENTRY
from .models import ISO_TIME, Content, Entry, ParseResult, Problem
from .origins import add_paths
from .schema import TOPIC_LIST_FILL
from .text import detect_language, normalise
from .topics import ALSO_LIST_FILL

if TYPE_CHECKING:
    from .feed_parse import FeedEntry

# how much of the content, past what the summary says, clustering reads with the title
# and the summary: the opening of a post says what it is about; its body wanders (and
# tokenizing is most of the cost of placing an entry)
START_CHARS = 500
# what html_to_text adds that says nothing about the subject: link references "[1]", and
# the list of links at the end
# (found by their bracket, which the regex engine skips to, where a pattern that may open
# with a space is tried at every space)
_LINK_MARK = re.compile(r"\[\d+\]")
_LINK_LIST = re.compile(r"\n\nLinks:\n(?:\[\d+\] \S*\n?)+\Z")


class FeedItem(NamedTuple):
    """One feed entry as the store keeps it: the entry's row and its whole content."""

    entry: Entry
    content: Content
    stored: _content.Stored | None = None  # the content as stored, when made already


def with_stored(it: FeedItem) -> FeedItem:
    """``it`` with its content compressed and hashed as the store keeps it."""
    return it._replace(stored=_content.stored(it.content))


def _content_row(entry_id: str, it: FeedItem) -> tuple[str, str, bytes | None, str]:
    if it.stored is None:
        return _content.row(entry_id, it.content)
    return entry_id, *it.stored


class Written(NamedTuple):
    """What writing a feed's entries did: the ids of the new and the updated entries."""

    new: list[str]
    updated: list[str]


def feed_scope(feed_id: int) -> str:
    """The scope of a subscribed feed's keys."""
    return f"feed:{feed_id}"


def entry_id_for(scope: str, key: str, attempt: int = 0) -> str:
    """The id of the entry ``key`` of ``scope`` (16 hex digits, as every entry id); a
    later ``attempt`` gives another, for the rare id another entry already has."""
    payload = f"{scope}\x1f{key}" + (f"\x1f{attempt}" if attempt else "")
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def without_link_marks(text: str) -> str:
    """``text`` without its link references, each with the one space before it: what
    ``re.sub(r" ?\\[\\d+\\]", "", text)`` gives (a test compares them)."""
    if "[" not in text:
        return text
    parts = _LINK_MARK.split(text)
    last = parts.pop()
    return "".join([part[:-1] if part[-1:] == " " else part for part in parts]) + last


def content_start(summary: str, text: str) -> str:
    """The first :data:`START_CHARS` characters of the content past the summary, when
    the summary is the content's own start (a feed without a summary: it would count
    twice), cut at a space; without link references."""
    text = without_link_marks(_LINK_LIST.sub("", text))
    body = normalise(text[: 4 * START_CHARS + len(summary)])
    lead = normalise(summary).rstrip("…").rstrip()
    if lead and body.startswith(lead):
        body = body[len(lead) :].lstrip()
    if len(body) <= START_CHARS:
        return body
    cut = body[:START_CHARS]
    space = cut.rfind(" ")
    return cut[:space] if space > START_CHARS // 2 else cut


def item(
    fe: FeedEntry,
    *,
    scope: str,
    feed_id: int | None,
    source: str,
    origin: str,
    seen_at: float,
) -> FeedItem:
    """The store's entry for the parsed feed entry ``fe`` (an entry without a date is
    dated ``seen_at``, and says so)."""
    if fe.published is not None:
        moment = fe.published.astimezone(_dt.UTC)
        first_seen = False
    else:
        moment = _dt.datetime.fromtimestamp(seen_at, _dt.UTC)
        first_seen = True
    entry = Entry(
        id=entry_id_for(scope, fe.key),
        title=fe.title,
        summary=fe.summary,
        source=source,
        date=moment.date().isoformat(),
        url=fe.url,
        lang=detect_language(f"{fe.title} {fe.summary}"),
        format="feed",
        origin_file=origin,
        origin_line=fe.line,
        feed_id=feed_id,
        feed_key=fe.key,
        author=fe.author,
        published=moment.strftime(ISO_TIME),
        date_first_seen=first_seen,
        content_start=content_start(fe.summary, fe.content_text),
    )
    return FeedItem(entry, Content(fe.content_text, fe.content_html))


# --- writing a subscribed feed's entries ---------------------------------------------------

_KNOWN = (
    "SELECT e.feed_key, e.id, e.title, e.summary, e.url, e.author, e.date_first_seen, "
    "coalesce(c.hash, '') FROM entries e LEFT JOIN entry_content c ON c.entry_id = e.id "
    "WHERE e.feed_id = ? AND e.feed_key IN ({marks})"
)
_UPDATE = (
    "UPDATE entries SET title = ?, summary = ?, url = ?, author = ?, lang = ?, "
    "content_start = ?, source = ? WHERE id = ?"
)
_DATED = "UPDATE entries SET date = ?, published = ?, date_first_seen = 0 WHERE id = ?"


def write(conn: sqlite3.Connection, feed_id: int, items: Sequence[FeedItem], now: float) -> Written:
    """Add the new entries of ``items`` (all of feed ``feed_id``) and update the changed
    ones in place, inside the caller's write transaction."""
    known: dict[str, tuple[str, ...]] = {}
    keys = [it.entry.feed_key for it in items]
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        sql = _KNOWN.format(marks=",".join("?" * len(chunk)))
        for key, *rest in conn.execute(sql, [feed_id, *chunk]):
            known[key] = tuple(rest)
    fresh: list[FeedItem] = []
    updated: list[str] = []
    for it in items:
        e = it.entry
        old = known.get(e.feed_key or "")
        if old is None:
            fresh.append(it)
            continue
        eid, title, summary, url, author, first_seen, digest = old
        row = _content_row(eid, it)
        if (title, summary, url, author, digest) == (e.title, e.summary, e.url, e.author, row[3]):
            if first_seen and not e.date_first_seen:  # the feed dates it now
                conn.execute(_DATED, (e.date, e.published, eid))
                _relist(conn, eid)
            continue
        conn.execute(
            _UPDATE, (e.title, e.summary, e.url, e.author, e.lang, e.content_start, e.source, eid)
        )
        if first_seen and not e.date_first_seen:
            conn.execute(_DATED, (e.date, e.published, eid))
        _content.put(conn, [row])
        conn.execute("DELETE FROM token_cache WHERE entry_id = ?", (eid,))  # its text changed
        _relist(conn, eid)
        updated.append(eid)
    return Written(_insert(conn, fresh, now), updated)


def _insert(conn: sqlite3.Connection, items: Sequence[FeedItem], now: float) -> list[str]:
    """Insert new feed entries, each under its id, or another when that one is taken."""
    rows, contents, ids = [], [], []
    taken: set[str] = set()
    for start in range(0, len(items), 500):
        chunk = [it.entry.id for it in items[start : start + 500]]
        marks = ",".join("?" * len(chunk))
        found = conn.execute(f"SELECT id FROM entries WHERE id IN ({marks})", chunk)
        taken |= {i for (i,) in found}
    for it in items:
        e = it.entry
        attempt = 0
        while e.id in taken:
            attempt += 1
            e.id = entry_id_for(feed_scope(e.feed_id or 0), e.feed_key or "", attempt)
            if conn.execute("SELECT 1 FROM entries WHERE id = ?", (e.id,)).fetchone():
                taken.add(e.id)
        taken.add(e.id)
        ids.append(e.id)
        rows.append(e.to_row(now))
        if it.content.text or it.content.html:
            contents.append(_content_row(e.id, it))
    add_paths(conn, [it.entry.origin_file for it in items])
    conn.executemany(INSERT_ENTRY, rows)
    _content.put(conn, contents)
    return ids


def _relist(conn: sqlite3.Connection, entry_id: str) -> None:
    """The entry's rows in the topic lists made again (its title or date changed)."""
    conn.execute("DELETE FROM topic_list WHERE entry_id = ?", (entry_id,))
    conn.execute(TOPIC_LIST_FILL + " WHERE a.entry_id = ?", (entry_id,))
    conn.execute("DELETE FROM topic_also_list WHERE entry_id = ?", (entry_id,))
    conn.execute(ALSO_LIST_FILL + " WHERE a.entry_id = ?", (entry_id,))


def set_source(conn: sqlite3.Connection, feed_id: int, source: str) -> None:
    """The feed's entries (and their rows in the topic lists) named ``source``."""
    where = "WHERE entry_id IN (SELECT id FROM entries WHERE feed_id = ?) AND source != ?"
    for table in ("topic_list", "topic_also_list"):
        conn.execute(f"UPDATE {table} SET source = ? {where}", (source, feed_id, source))
    conn.execute(
        "UPDATE entries SET source = ? WHERE feed_id = ? AND source != ?",
        (source, feed_id, source),
    )


# --- a feed file on disk -------------------------------------------------------------------


def not_a_feed(exc: Exception) -> str:
    """What the parser's refusal says, saying it is not a feed (once)."""
    text = str(exc)
    return text if "not a feed" in text else f"not a feed: {text}"


def parse_feed_file(data: bytes, display: str, origin: str, seen_at: float) -> ParseResult:
    """A feed document read from a file, as an import's result (entries with their
    contents); a file that is no feed gives one problem saying what it is."""
    from .feed_parse import NotAFeed, parse_feed

    path = Path(origin)
    url = path.resolve().as_uri() if path.is_absolute() else ""
    try:
        parsed = parse_feed(data, url=url, path=display)
    except NotAFeed as exc:
        return ParseResult(display, "feed", problems=[Problem(display, 0, not_a_feed(exc))])
    result = ParseResult(display, "feed", problems=list(parsed.problems))
    scope = f"file:{parsed.link or origin}"
    source = parsed.title or path.name
    for fe in parsed.entries:
        it = item(fe, scope=scope, feed_id=None, source=source, origin=origin, seen_at=seen_at)
        if it.entry.id in result.contents:
            continue  # one entry twice in a document: the first counts
        result.entries.append(it.entry)
        result.contents[it.entry.id] = it.content
    return result
