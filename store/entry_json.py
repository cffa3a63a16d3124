"""An entry read back from JSON (an export), every field checked: loaded when an export is
read, not with the models (the reader's start never reads one)."""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any

from . import jsonvalues as check
from .models import ISO_TIME, Entry

ENTRY_ID = re.compile(r"[0-9a-f]{16}")  # what store.text.entry_id makes


def entry_from_json(obj: Any) -> Entry:
    """The entry :meth:`.Entry.to_json` wrote; :class:`jsonvalues.Invalid` naming the first
    field that is wrong."""
    if not isinstance(obj, dict):
        raise check.Invalid(f"'entry' must be an object, not {check.kind(obj)}")
    entry_id = check.text(obj, "id", required=True)
    if not ENTRY_ID.fullmatch(entry_id):
        raise check.Invalid(f"'id' {entry_id[:40]!r} is not an entry id (16 hex digits)")
    date = obj.get("date")
    if date is not None and (not isinstance(date, str) or not _is_iso_date(date)):
        raise check.Invalid(f"'date' {str(date)[:40]!r} is not a date (YYYY-MM-DD)")
    url = obj.get("url")
    if url is not None and not isinstance(url, str):
        raise check.Invalid(f"'url' must be a string or null, not {check.kind(url)}")
    title_given = obj.get("title_given", True)
    if not isinstance(title_given, bool):
        raise check.Invalid(f"'title_given' must be true or false, not {check.kind(title_given)}")
    origin = obj.get("origin") or {}
    if not isinstance(origin, dict):
        raise check.Invalid(f"'origin' must be an object, not {check.kind(origin)}")
    extra = obj.get("extra") or {}
    if not isinstance(extra, dict):
        raise check.Invalid(f"'extra' must be an object, not {check.kind(extra)}")
    feed_id = obj.get("feed")
    if feed_id is not None and (
        isinstance(feed_id, bool) or not isinstance(feed_id, int) or feed_id < 1
    ):
        raise check.Invalid(f"'feed' must be a feed id or null, not {str(feed_id)[:40]!r}")
    feed_key = obj.get("feed_key")
    if feed_key is not None and not isinstance(feed_key, str):
        raise check.Invalid(f"'feed_key' must be a string or null, not {check.kind(feed_key)}")
    published = obj.get("published")
    if published is not None and (not isinstance(published, str) or not is_iso_time(published)):
        raise check.Invalid(
            f"'published' {str(published)[:40]!r} is not a time (YYYY-MM-DDTHH:MM:SSZ)"
        )
    first_seen = obj.get("date_first_seen", False)
    if not isinstance(first_seen, bool):
        raise check.Invalid(
            f"'date_first_seen' must be true or false, not {check.kind(first_seen)}"
        )
    return Entry(
        id=entry_id,
        title=check.text(obj, "title", required=True),
        title_given=title_given,
        summary=check.text(obj, "summary", required=True),
        comment=check.text(obj, "comment"),
        source=check.text(obj, "source"),
        category=check.text(obj, "category"),
        date=date,
        url=url,
        lang=check.text(obj, "lang", default="zh") or "zh",
        format=check.text(obj, "format"),
        origin_file=check.text(origin, "file"),
        origin_line=check.whole(origin.get("line", 0), "origin.line"),
        extra=extra,
        feed_id=feed_id,
        feed_key=feed_key,
        author=check.text(obj, "author"),
        published=published,
        date_first_seen=first_seen,
    )


def _is_iso_date(text: str) -> bool:
    try:
        return _dt.date.fromisoformat(text).isoformat() == text
    except ValueError:
        return False


def is_iso_time(text: str) -> bool:
    """Whether ``text`` is a time as stored (:data:`ISO_TIME`)."""
    try:
        return _dt.datetime.strptime(text, ISO_TIME).strftime(ISO_TIME) == text
    except ValueError:
        return False
