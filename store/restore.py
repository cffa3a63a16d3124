"""Reading a JSON export back in: ``topiclens import bookmarks.json`` restores a backup.

A file is a topiclens export when it is one JSON object whose ``format`` is
``topiclens-bookmarks`` (recognised from the content, never from the name). The whole file
is checked before anything is written; then one transaction adds the entries the store
lacks (with their original ids, so bookmarks match) and sets each bookmark's time and note
exactly as exported. Bookmarks already in the store that the export does not mention are
kept. A malformed export changes nothing and is reported as ``file:line: what is wrong``.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from . import bookmarks, entries
from .db import Store
from .export import EXPORT_FORMAT, EXPORT_VERSION
from .jsonvalues import Invalid, check, kind, too_deep
from .models import Bookmark, Entry, ImportReport, Problem
from .reading import BOM, read_source

# Enough of the head of a file to find the marker of an indented export.
_HEAD_BYTES = 4096
_MARKER = re.compile(rb'"format"\s*:\s*"' + re.escape(EXPORT_FORMAT.encode()) + rb'"')


@dataclass(slots=True)
class RestoreReport(ImportReport):
    """An import report that also counts bookmarks: restored (added, or given back their
    exported time or note) and unchanged (already exactly as exported)."""

    bookmarks_restored: int = 0
    bookmarks_unchanged: int = 0


@dataclass(frozen=True, slots=True)
class RestoreItem:
    entry: Entry
    bookmark: Bookmark


def export_marker(data: bytes) -> bool:
    """True when ``data`` is a topiclens JSON export (an object whose ``format`` is the
    export marker), even a damaged one whose head still says so. Never raises."""
    data = data.removeprefix(BOM).lstrip()
    if not data.startswith(b"{"):
        return False
    first_line = data.split(b"\n", 1)[0]
    try:
        obj = orjson.loads(first_line)
    except orjson.JSONDecodeError:
        pass
    else:
        # a whole object on the first line: an export only if it says so (else JSON Lines)
        return isinstance(obj, dict) and obj.get("format") == EXPORT_FORMAT
    # an indented export (its first line is "{"), or a long one-line one: the marker is
    # near the top of what topiclens writes, even when the rest is damaged
    if _MARKER.search(data[:_HEAD_BYTES]):
        return True
    # one JSON document over many lines (never JSON Lines): an export if it says so anywhere
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        return False
    return isinstance(doc, dict) and doc.get("format") == EXPORT_FORMAT


def looks_like_export(path: str | Path) -> bool:
    """:func:`export_marker` of the file at ``path`` (False when it cannot be read)."""
    try:
        return export_marker(Path(path).read_bytes())
    except OSError:
        return False


# The latest time an export can show (9999-12-31T23:59:59Z): beyond it, every later
# export would fail to render the bookmark.
LATEST_SECONDS = 253_402_300_799


def _bookmarked_at(when: Any) -> float:
    if (
        isinstance(when, bool)
        or not isinstance(when, int | float)
        or not math.isfinite(when)
        or when < 0
    ):
        raise Invalid(f"'bookmarked_at' must be a time in seconds, not {when!r}")
    if when > LATEST_SECONDS:
        if when / 1000 <= LATEST_SECONDS:
            moment = _dt.datetime.fromtimestamp(when / 1000, _dt.UTC).strftime("%Y-%m-%d")
            raise Invalid(
                f"'bookmarked_at' {when!r} looks like milliseconds ({moment} if so); an "
                "export holds seconds since 1970: divide it by 1000 and import again"
            )
        raise Invalid(f"'bookmarked_at' {when!r} is too far in the future to be a time")
    return float(when)


def _item(obj: Any) -> RestoreItem:
    if not isinstance(obj, dict):
        raise Invalid(f"a bookmark must be an object, not {kind(obj)}")
    if "entry" not in obj:
        raise Invalid("missing 'entry'")
    entry = Entry.from_json(obj["entry"])
    when = _bookmarked_at(obj.get("bookmarked_at"))
    note = obj.get("note", "")
    if note is None:
        note = ""
    if not isinstance(note, str):
        raise Invalid(f"'note' must be a string, not {kind(note)}")
    return RestoreItem(entry, Bookmark(entry.id, when, note))


def _line_of(text: str, needle: str) -> int:
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else 0


def _item_line(text: str, obj: Any) -> int:
    """The line of a bookmark's entry id in the file (0 when it has none): where to look.
    Only computed for a bookmark with a problem: it scans the text."""
    entry = obj.get("entry") if isinstance(obj, dict) else None
    eid = entry.get("id") if isinstance(entry, dict) else None
    return _line_of(text, orjson.dumps(eid).decode()) if isinstance(eid, str) else 0


def read_export(
    path: str | Path, display: str | None = None
) -> tuple[list[RestoreItem], list[Problem]]:
    """The bookmarks of the export at ``path`` (see :func:`read_export_data`)."""
    display = display if display is not None else str(path)
    data = read_source(path, display)
    if isinstance(data, Problem):
        return [], [data]
    return read_export_data(data, display)


def read_export_data(data: bytes, display: str) -> tuple[list[RestoreItem], list[Problem]]:
    """The bookmarks of an export, or the problems that make it unusable (then no items:
    an export is restored whole or not at all)."""
    data = data.removeprefix(BOM)
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        what = "nested too deeply" if too_deep(exc) else exc.msg
        return [], [Problem(display, exc.lineno, f"malformed JSON export: {what}")]
    try:
        check(doc, data, "the export")
    except Invalid as exc:
        return [], [Problem(display, 0, exc.message)]
    if not isinstance(doc, dict) or doc.get("format") != EXPORT_FORMAT:
        return [], [Problem(display, 0, f"not a topiclens export (no format {EXPORT_FORMAT!r})")]
    text = data.decode("utf-8", errors="replace")
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        line = _line_of(text, '"version"')
        return [], [Problem(display, line, f"'version' must be a whole number, not {version!r}")]
    if version > EXPORT_VERSION:
        return [], [
            Problem(
                display,
                _line_of(text, '"version"'),
                f"written by a newer topiclens (export version {version}; this version "
                f"reads up to {EXPORT_VERSION}); upgrade topiclens to import it",
            )
        ]
    raw = doc.get("bookmarks")
    if not isinstance(raw, list):
        line = _line_of(text, '"bookmarks"')
        return [], [Problem(display, line, f"'bookmarks' must be a list, not {kind(raw)}")]
    items: list[RestoreItem] = []
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for number, obj in enumerate(raw, start=1):
        try:
            item = _item(obj)
        except Invalid as exc:
            line = _item_line(text, obj)
            problems.append(Problem(display, line, f"bookmark {number}: {exc.message}"))
            continue
        if item.entry.id in seen:
            first = seen[item.entry.id]
            problems.append(
                Problem(
                    display,
                    _item_line(text, obj),
                    f"bookmark {number}: entry {item.entry.id} is already bookmark {first}",
                )
            )
            continue
        seen[item.entry.id] = number
        items.append(item)
    if problems:
        return [], problems
    return items, []


def restore_items(store: Store, items: list[RestoreItem]) -> RestoreReport:
    """One transaction: entries the store lacks are added with their ids; each bookmark
    gets exactly its exported time and note."""
    report = RestoreReport()
    now = time.time()
    with store.write() as conn:
        for item in items:
            if entries.insert(conn, item.entry, now):
                report.new += 1
                report.new_ids.append(item.entry.id)
            else:
                report.known += 1
            if bookmarks.put_exact(conn, item.bookmark):
                report.bookmarks_restored += 1
            else:
                report.bookmarks_unchanged += 1
    return report


def restore_data(store: Store, data: bytes, display: str) -> RestoreReport:
    """Restore an export already read whole. Problems are reported, never raised; with
    any problem nothing is written."""
    items, problems = read_export_data(data, display)
    if problems:
        return RestoreReport(rejected=len(problems), problems=problems)
    return restore_items(store, items)


def restore_file(store: Store, path: str | Path, display: str | None = None) -> RestoreReport:
    """Restore the JSON export at ``path`` into ``store`` (see :func:`restore_data`)."""
    display = display if display is not None else str(path)
    data = read_source(path, display)
    if isinstance(data, Problem):
        return RestoreReport(rejected=1, problems=[data])
    return restore_data(store, data, display)
