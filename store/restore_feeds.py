"""The feed side of restoring a JSON export: an exported feed entry carries its whole
content and its feed's URL and title. Restored into any store, the entry joins the feed at
that URL there (a subscribed one, else a row remembered unsubscribed, so adding the URL
later finds the entry instead of fetching it as new); an entry the store already holds
under another id (the same key in the same feed) takes its bookmark and note there. Its
HTML is sanitised again: an edited backup is data like any other."""

from __future__ import annotations

import dataclasses
import sqlite3
from typing import TYPE_CHECKING, Any, NamedTuple

from . import content as _content
from . import feeds as _feeds
from .feed_entries import content_start
from .jsonvalues import Invalid, kind
from .models import Content

if TYPE_CHECKING:
    from .restore import RestoreItem


class FeedRef(NamedTuple):
    url: str
    title: str


def extras(obj: Any) -> tuple[Content | None, FeedRef | None]:
    """The whole content and the feed an exported entry carries (None: it has none);
    :class:`Invalid` naming the field when one is not text."""
    if not isinstance(obj, dict):
        return None, None
    for key in ("content", "content_html", "feed_url", "feed_title"):
        value = obj.get(key)
        if value is not None and not isinstance(value, str):
            raise Invalid(f"{key!r} must be a string, not {kind(value)}")
    text, html = obj.get("content") or "", obj.get("content_html") or ""
    content = Content(text, html) if text or html else None
    url = obj.get("feed_url")
    feed = FeedRef(url, obj.get("feed_title") or "") if url and obj.get("feed") else None
    return content, feed


def settle(conn: sqlite3.Connection, items: list[RestoreItem], now: float) -> list[RestoreItem]:
    """``items`` made ready for this store, inside the restore's transaction: each feed
    entry in this store's feed of its URL (none: no feed), its content's start worked out
    and its HTML sanitised, and known under this store's id for it."""
    rows: dict[str, int] = {}
    settled = []
    for item in items:
        entry, content = item.entry, item.content
        feed_id = None
        if item.feed is not None:
            if item.feed.url not in rows:
                rows[item.feed.url] = _feeds.row_for(conn, item.feed.url, item.feed.title, now)
            feed_id = rows[item.feed.url]
        changes: dict[str, Any] = {"feed_id": feed_id}
        if content is not None:
            if content.html:
                from .html_text import sanitize_html

                content = Content(content.text, sanitize_html(content.html, entry.url))
            changes["content_start"] = content_start(entry.summary, content.text)
        if feed_id is not None and entry.feed_key is not None:
            known = conn.execute(
                "SELECT id FROM entries WHERE feed_id = ? AND feed_key = ?",
                (feed_id, entry.feed_key),
            ).fetchone()
            if known is not None:
                changes["id"] = known[0]
        entry = entry.replace(**changes)
        bookmark = item.bookmark._replace(entry_id=entry.id)
        settled.append(dataclasses.replace(item, entry=entry, bookmark=bookmark, content=content))
    return settled


def put_content(conn: sqlite3.Connection, item: RestoreItem) -> None:
    """Store a restored entry's whole content (the entry was just added)."""
    if item.content is not None:
        _content.put_many(conn, {item.entry.id: item.content})
