"""Bookmarks that leave: Markdown, JSON, CSV and HTML exports.

``FORMATS`` is the one list of export formats: the command line's ``--format`` choices and
help, the reader's dialog and docs/export.md follow it, so a new format is one entry there,
its renderer (a function of :class:`ExportContent` to bytes) and its test. ``collect``
gathers the bookmarks, ``build`` renders them in memory (bookmarks are a reader's
selection, not the whole corpus), :mod:`.export_file` puts the document on disk.

The JSON export is also a backup (``topiclens import`` reads it back, see
:mod:`topiclens.store.restore`): it holds every stored value exactly. Markdown, CSV and
HTML hold text as it may reach a terminal (:func:`topiclens.text.terminal_text`). No Textual here.
"""

from __future__ import annotations

import csv
import datetime as _dt
import io
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from topiclens.text import terminal_text

from .bookmarks import Note
from .db import Store
from .export_file import ExportError, ExportExists, check_target, write_atomic
from .export_html import render_html
from .export_items import (
    UNSORTED,
    ExportContent,
    ExportGroup,
    ExportItem,
    iso_time,
    problems,
    time_text,
)
from .export_markdown import md_escape_line, render_markdown
from .models import Entry

__all__ = [
    "FORMATS",
    "UNSORTED",
    "ExportError",
    "ExportExists",
    "ExportFormat",
    "build",
    "collect",
    "default_filename",
    "export_bookmarks",
    "iso_time",
    "md_escape_line",
    "render",
    "write_atomic",
]

# The JSON export's marker: ``topiclens import`` recognises a file by these two keys.
EXPORT_FORMAT = "topiclens-bookmarks"
EXPORT_VERSION = 1

# What ``--output`` takes to mean standard output rather than a file.
STDOUT_NAMES = ("-", "/dev/stdout")

CSV_COLUMNS: tuple[str, ...] = (
    "topic_id",
    "topic",
    "id",
    "title",
    "summary",
    "comment",
    "note",
    "source",
    "category",
    "date",
    "url",
    "lang",
    "bookmarked_at",
)


# --- what is exported ------------------------------------------------------------------


def collect(store: Store, *, topic_id: int | None = None) -> list[ExportGroup]:
    """Bookmarks grouped by topic, in the reader's topic order (largest first), bookmarks
    without a topic last under "Unsorted"; inside a group, in the order they were made.
    A bookmark made from a topic the entry is only also listed under is filed there.
    With ``topic_id``, only that topic's bookmarks (ExportError if there is no such topic)."""
    topics = store.topics()
    names = {t.id: t.name for t in topics}
    if topic_id is not None and topic_id not in names:
        raise ExportError(f"no topic with id {topic_id}")
    bookmarks = store.bookmarks()
    entries = {e.id: e for e in store.entries([b.entry_id for b in bookmarks])}
    groups: dict[int | None, ExportGroup] = {
        t.id: ExportGroup(t.id, t.name) for t in topics if topic_id in (None, t.id)
    }
    if topic_id is None:
        groups[None] = ExportGroup(None, UNSORTED)
    # under the topic it was bookmarked from (an "also" topic of the entry, say), not
    # under both: a bookmark is one record (a backup restores it once) and one count
    assigned = store.bookmark_filed_topics()
    for b in bookmarks:
        entry = entries.get(b.entry_id)
        if entry is None:  # cannot happen with foreign keys on; never export half a record
            continue
        tid = assigned.get(b.entry_id)
        if tid is not None and tid not in names:
            tid = None
        group = groups.get(tid)
        if group is None:
            continue
        group.items.append(ExportItem(entry, b, tid, names.get(tid) if tid is not None else None))
    return [g for g in groups.values() if g.items]


# --- JSON --------------------------------------------------------------------------------


def render_json(doc: ExportContent) -> bytes:
    from .. import __version__

    items = [item for g in doc.groups for item in g.items]
    data = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported_at": doc.exported_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "generator": f"topiclens {__version__}",
        "topic_filter": doc.topic_name,
        "count": len(items),
        "bookmarks": [
            {
                "entry": entry_json(doc, i.entry),
                "topic": None if i.topic_id is None else {"id": i.topic_id, "name": i.topic_name},
                "bookmarked_at": i.bookmark.created_at,
                "bookmarked": time_text(i.bookmark.created_at),
                "note": i.bookmark.note,
                "from_topic": doc.from_topics.get(i.entry.id),
            }
            for i in items
        ],
    }
    data.update(doc.views)  # saved searches and mute rules: topiclens import puts them back
    if doc.notes:
        # notes kept on entries that are no longer bookmarked: restored as notes only
        data["notes"] = [
            {"entry": entry_json(doc, entry), "noted_at": n.noted_at, "note": n.note}
            for entry, n in doc.notes
        ]
    if doc.corrections:
        data["corrections"] = doc.corrections  # topiclens import puts them back
    return json_bytes(data)


def entry_json(doc: ExportContent, entry: Entry) -> dict[str, Any]:
    """An entry as the JSON export holds it: every field, its whole content (as text and
    as sanitised HTML) and, for a feed's entry, the feed's URL and title, so that a
    restore into another store finds or remembers the feed."""
    data = entry.to_json()
    content = doc.contents.get(entry.id)
    if content is not None:
        data["content"] = content.text
        data["content_html"] = content.html
    feed = doc.feeds.get(entry.feed_id) if entry.feed_id else None
    if feed is not None:
        data["feed_url"] = feed.url
        data["feed_title"] = feed.display_name
    return data


# orjson escapes only C0 controls; the other characters a terminal acts on (C1 controls,
# bidi and format characters: terminal_text decides, this class only finds candidates) are
# written as \uXXXX escapes, which every JSON reader turns back into the same text.
_JSON_SUSPECT = re.compile(
    "[\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001-\U000e007f]"
)


def _json_escape(match: re.Match[str]) -> str:
    ch = match.group()
    if terminal_text(ch) == ch:
        return ch
    units = ch.encode("utf-16-be")
    return "".join(f"\\u{units[n]:02x}{units[n + 1]:02x}" for n in range(0, len(units), 2))


def json_bytes(value: Any) -> bytes:
    """``value`` as indented JSON, safe to print on a terminal and read back exactly."""
    data = orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n"
    text = data.decode("utf-8")
    if _JSON_SUSPECT.search(text) is None:
        return data
    return _JSON_SUSPECT.sub(_json_escape, text).encode("utf-8")


# --- CSV ---------------------------------------------------------------------------------


# A cell a spreadsheet would read as a formula (OWASP's list); it gets a leading quote.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> str:
    """One CSV cell: text safe for a terminal, and never a formula (OWASP's rule: a
    leading ``'`` before ``=``, ``+``, ``-``, ``@``, tab or carriage return)."""
    text = terminal_text(str(value))
    return "'" + text if text.startswith(_FORMULA_START) else text


def render_csv(doc: ExportContent) -> bytes:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n")  # RFC 4180: CRLF, quotes as needed
    writer.writerow(CSV_COLUMNS)
    for g in doc.groups:
        for i in g.items:
            e = i.entry
            row = (
                "" if i.topic_id is None else i.topic_id,
                g.name,
                e.id,
                e.title,
                e.summary,
                e.comment,
                i.bookmark.note,
                e.source,
                e.category,
                e.date or "",
                e.url or "",
                e.lang,
                time_text(i.bookmark.created_at),
            )
            writer.writerow([csv_cell(value) for value in row])
    # A byte order mark so spreadsheet programs read the file as UTF-8 (Chinese intact).
    return buffer.getvalue().encode("utf-8-sig")


# --- the registry ------------------------------------------------------------------------

Renderer = Callable[[ExportContent], bytes]


@dataclass(frozen=True, slots=True)
class ExportFormat:
    """One export format: ``name`` is what ``--format`` takes, ``label`` what people read,
    ``extension`` how its file name ends, ``render`` makes the document."""

    name: str
    label: str
    extension: str
    render: Renderer


FORMATS: tuple[ExportFormat, ...] = (
    ExportFormat("md", "Markdown", ".md", render_markdown),
    ExportFormat("json", "JSON", ".json", render_json),
    ExportFormat("csv", "CSV", ".csv", render_csv),
    ExportFormat("html", "HTML", ".html", render_html),
)


def format_for_path(path: str | Path) -> ExportFormat | None:
    """The format whose extension ends ``path`` (any letter case; ``.htm`` and
    ``.markdown`` too), None when none does: the reader's dialog and ``-o`` choose by it."""
    suffix = Path(path).suffix.lower()
    suffix = {".htm": ".html", ".markdown": ".md"}.get(suffix, suffix)
    return next((f for f in FORMATS if f.extension == suffix), None)


def format_names() -> tuple[str, ...]:
    return tuple(f.name for f in FORMATS)


def get_format(name: str) -> ExportFormat:
    for f in FORMATS:
        if f.name == name:
            return f
    raise ExportError(f"unknown export format {name!r} (choose one of {', '.join(format_names())})")


# --- making and writing an export --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExportDocument:
    data: bytes
    count: int  # bookmarks in it
    problems: list[str]  # stored values written differently (see :func:`problems`)


def build(store: Store, fmt: str, *, topic_id: int | None = None) -> ExportDocument:
    """The whole export document in format ``fmt`` (a name in FORMATS), with how many
    bookmarks it holds and what it had to write differently from the store."""
    renderer = get_format(fmt).render
    groups = collect(store, topic_id=topic_id)
    topic_name = groups[0].name if topic_id is not None and groups else None
    if topic_id is not None and topic_name is None:
        topic = store.topic(topic_id)
        topic_name = topic.name if topic else None
    notes: list[tuple[Entry, Note]] = []
    if topic_id is None:
        loose = store.loose_notes()
        entries = {e.id: e for e in store.entries([n.entry_id for n in loose])}
        notes = [(entries[n.entry_id], n) for n in loose if n.entry_id in entries]
    corrections = None
    if topic_id is None:
        in_force = store.corrections()
        corrections = None if in_force.is_empty() else in_force.to_json()
    views = views_json(store) if topic_id is None else {}
    entries = [i.entry for g in groups for i in g.items] + [e for e, _ in notes]
    contents = store.entry_contents([e.id for e in entries])
    feeds = {fid: f for fid in {e.feed_id for e in entries} if fid and (f := store.feed(fid))}
    content = ExportContent(
        groups,
        topic_name,
        _dt.datetime.now(_dt.UTC),
        notes,
        corrections,
        views=views,
        from_topics=store.bookmark_from_topics(),
        contents=contents,
        feeds=feeds,
    )
    return ExportDocument(renderer(content), content.count, problems(groups))


def views_json(store: Store) -> dict[str, Any]:
    """The saved searches and mute rules as a JSON export keeps them (keys left out when
    there are none, so an export of a store without them is as it was)."""
    views: dict[str, Any] = {}
    searches = store.saved_searches()
    if searches:
        views["saved_searches"] = [
            {"name": s.name, "query": s.query, "created_at": s.created_at} for s in searches
        ]
    rules = store.mute_rules()
    if rules:
        views["mute_rules"] = [
            {"kind": r.kind, "value": r.value, "created_at": r.created_at} for r in rules
        ]
    return views


def render(store: Store, fmt: str, *, topic_id: int | None = None) -> bytes:
    """The whole export document in format ``fmt``, as bytes ready to write."""
    return build(store, fmt, topic_id=topic_id).data


def default_filename(fmt: str) -> str:
    """``topiclens-bookmarks-YYYY-MM-DD.<extension>``, dated today (local time)."""
    return f"topiclens-bookmarks-{_dt.date.today().isoformat()}{get_format(fmt).extension}"


def is_stdout(output: str | None) -> bool:
    """Whether an ``--output`` value means standard output (``-`` or ``/dev/stdout``)."""
    return output in STDOUT_NAMES


def export_bookmarks(
    store: Store,
    fmt: str,
    path: Path | None,
    *,
    topic_id: int | None = None,
    force: bool = False,
) -> Path | None:
    """Render and write an export. ``path`` None writes to standard output and returns None
    (the command line's ``--output -``); otherwise returns the path written. A path that
    cannot be written fails before anything is rendered."""
    get_format(fmt)
    if path is not None:
        path = Path(path).expanduser()
        check_target(path, force=force)
    data = render(store, fmt, topic_id=topic_id)
    if path is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return None
    return write_atomic(path, data, force=force)
