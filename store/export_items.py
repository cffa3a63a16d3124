"""What an export holds, shared by every format's renderer: the bookmarks grouped by topic,
and the few rules for showing their values (times, links, lines of text). No Textual here.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from typing import Any

from topiclens.text import terminal_line

from .bookmarks import Note
from .models import Bookmark, Content, Entry, Feed

UNSORTED = "Unsorted"  # the group of bookmarks whose entry has no topic (yet)

# Only these URL schemes become links; anything else (javascript:, data:, file:) is text.
_LINK_SCHEME = re.compile(r"^(?:https?|ftp)://[^\s<>\"'`]+$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ExportItem:
    entry: Entry
    bookmark: Bookmark
    topic_id: int | None
    topic_name: str | None


@dataclass(slots=True)
class ExportGroup:
    topic_id: int | None  # None: the entries have no topic
    name: str
    items: list[ExportItem] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ExportContent:
    """Everything a renderer turns into a document."""

    groups: list[ExportGroup]
    topic_name: str | None  # the topic the export was limited to, None for all
    exported_at: _dt.datetime  # UTC
    # notes on entries no longer bookmarked (a whole JSON export keeps them, to be lossless)
    notes: list[tuple[Entry, Note]] = field(default_factory=list)
    # the reader's corrections to the topics (a whole JSON export keeps them)
    corrections: dict[str, Any] | None = None
    # saved searches and mute rules, by key (a whole JSON export keeps them)
    views: dict[str, Any] = field(default_factory=dict)
    # bookmarked entry id -> the topic it was bookmarked from (a JSON export keeps it)
    from_topics: dict[str, int] = field(default_factory=dict)
    # the whole content of the entries that have one (feed entries), by entry id
    contents: dict[str, Content] = field(default_factory=dict)
    # the feeds the entries came from, by id
    feeds: dict[int, Feed] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return count(self.groups)

    def title(self) -> str:
        base = "topiclens bookmarks"
        return f"{base}: {self.topic_name}" if self.topic_name else base

    def stamp(self) -> str:
        """When the export was made, for people: ``2026-11-29 15:20 UTC``."""
        return self.exported_at.strftime("%Y-%m-%d %H:%M") + " UTC"


def count(groups: list[ExportGroup]) -> int:
    return sum(len(g.items) for g in groups)


def iso_time(timestamp: float) -> str:
    """A bookmark time for people: UTC, to the second, e.g. ``2026-11-29T15:20:07Z``.
    Raises ValueError for a time no calendar holds; :func:`time_text` never does."""
    try:
        moment = _dt.datetime.fromtimestamp(timestamp, _dt.UTC)
    except (OverflowError, OSError, TypeError) as exc:
        raise ValueError(f"{timestamp!r} is not a time") from exc
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def time_text(timestamp: float) -> str:
    """:func:`iso_time`, or the stored number itself when it is no time a calendar holds
    (a time in milliseconds read as seconds is year 57884): an export never fails on it."""
    try:
        return iso_time(timestamp)
    except ValueError:
        return str(timestamp)


def problems(groups: list[ExportGroup]) -> list[str]:
    """What an export writes differently from how it is stored, one line each."""
    out = []
    for g in groups:
        for i in g.items:
            when = i.bookmark.created_at
            if time_text(when) == str(when):
                out.append(
                    f"bookmark of entry {terminal_line(str(i.entry.id))}: its time {when!r} is "
                    "out of range (milliseconds read as seconds?); written as the stored number"
                )
    return out


def link_url(url: str | None) -> str | None:
    """The URL if it is safe to make a link of (http, https, ftp; nothing a terminal would
    act on), else None."""
    if url and _LINK_SCHEME.match(url) and terminal_line(url) == url:
        return url
    return None


def text_lines(text: str) -> list[str]:
    """The non-blank lines of ``text``, each safe for a terminal and trimmed."""
    return [line for line in map(terminal_line, text.splitlines()) if line]
