"""Reading a JSON export back in: ``topiclens import bookmarks.json`` restores a backup.

A file is a topiclens export when it is one JSON object whose ``format`` is
``topiclens-bookmarks`` (recognised from the content, never from the name). The whole file
is checked before anything is written; then one transaction adds the entries the store
lacks (with their original ids, so bookmarks match) and sets each bookmark's time and note
exactly as exported. Bookmarks already in the store that the export does not mention are
kept. A malformed export changes nothing and is reported as ``file:line: what is wrong``.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from .db import INSERT_ENTRY, Store, entry_row
from .export import EXPORT_FORMAT, EXPORT_VERSION
from .models import Bookmark, Entry, ImportReport, Problem
from .parsers import BOM, parse_date

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


def looks_like_export(path: str | Path) -> bool:
    """True when the file's content says it is a topiclens JSON export (an object whose
    ``format`` is the export marker). Reads only the head of the file; never raises."""
    try:
        with Path(path).open("rb") as fh:
            head = fh.read(_HEAD_BYTES)
    except OSError:
        return False
    head = head.removeprefix(BOM).lstrip()
    if not head.startswith(b"{"):
        return False
    first_line = head.split(b"\n", 1)[0]
    try:
        obj = orjson.loads(first_line)
    except orjson.JSONDecodeError:
        pass
    else:
        # a whole object on the first line: an export only if it says so (else JSON Lines)
        return isinstance(obj, dict) and obj.get("format") == EXPORT_FORMAT
    # an indented export (its first line is "{"), or a long one-line one: the marker is
    # near the top of what topiclens writes, even when the rest is damaged
    if _MARKER.search(head):
        return True
    # one JSON document over many lines (never JSON Lines): an export if it says so anywhere
    try:
        doc = orjson.loads(Path(path).read_bytes().removeprefix(BOM))
    except (OSError, orjson.JSONDecodeError):
        return False
    return isinstance(doc, dict) and doc.get("format") == EXPORT_FORMAT


class _Invalid(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _str(obj: dict[str, Any], key: str, *, required: bool = False, default: str = "") -> str:
    value = obj.get(key)
    if value is None:
        if required:
            raise _Invalid(f"missing {key!r}")
        return default
    if not isinstance(value, str):
        raise _Invalid(f"{key!r} must be a string, not {_kind(value)}")
    if required and not value.strip():
        raise _Invalid(f"{key!r} is empty")
    return value


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false"}.get(
        type(value), "a number" if isinstance(value, int | float) else "null"
    )


def _entry(obj: Any) -> Entry:
    if not isinstance(obj, dict):
        raise _Invalid(f"'entry' must be an object, not {_kind(obj)}")
    entry_id = _str(obj, "id", required=True)
    if len(entry_id) > 128 or entry_id != entry_id.strip():
        raise _Invalid(f"'id' {entry_id[:40]!r} is not an entry id")
    date = obj.get("date")
    if date is not None and (not isinstance(date, str) or parse_date(date) != date):
        raise _Invalid(f"'date' {date!r} is not a date (YYYY-MM-DD)")
    url = obj.get("url")
    if url is not None and not isinstance(url, str):
        raise _Invalid(f"'url' must be a string or null, not {_kind(url)}")
    title_given = obj.get("title_given", True)
    if not isinstance(title_given, bool):
        raise _Invalid(f"'title_given' must be true or false, not {_kind(title_given)}")
    origin = obj.get("origin") or {}
    if not isinstance(origin, dict):
        raise _Invalid(f"'origin' must be an object, not {_kind(origin)}")
    origin_line = origin.get("line", 0)
    if isinstance(origin_line, bool) or not isinstance(origin_line, int) or origin_line < 0:
        raise _Invalid(f"'origin.line' must be a line number, not {origin_line!r}")
    extra = obj.get("extra") or {}
    if not isinstance(extra, dict):
        raise _Invalid(f"'extra' must be an object, not {_kind(extra)}")
    return Entry(
        id=entry_id,
        title=_str(obj, "title", required=True),
        title_given=title_given,
        summary=_str(obj, "summary", required=True),
        comment=_str(obj, "comment"),
        source=_str(obj, "source"),
        category=_str(obj, "category"),
        date=date,
        url=url,
        lang=_str(obj, "lang", default="zh") or "zh",
        format=_str(obj, "format"),
        origin_file=_str(origin, "file"),
        origin_line=origin_line,
        extra=extra,
    )


def _item(obj: Any) -> RestoreItem:
    if not isinstance(obj, dict):
        raise _Invalid(f"a bookmark must be an object, not {_kind(obj)}")
    if "entry" not in obj:
        raise _Invalid("missing 'entry'")
    entry = _entry(obj["entry"])
    when = obj.get("bookmarked_at")
    if (
        isinstance(when, bool)
        or not isinstance(when, int | float)
        or not math.isfinite(when)
        or when < 0
    ):
        raise _Invalid(f"'bookmarked_at' must be a time in seconds, not {when!r}")
    note = obj.get("note", "")
    if note is None:
        note = ""
    if not isinstance(note, str):
        raise _Invalid(f"'note' must be a string, not {_kind(note)}")
    return RestoreItem(entry, Bookmark(entry.id, float(when), note))


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
    """The bookmarks of an export, or the problems that make it unusable (then no items:
    an export is restored whole or not at all)."""
    path = Path(path)
    display = display if display is not None else str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        return [], [Problem(display, 0, f"cannot read: {exc.strerror or exc}")]
    data = data.removeprefix(BOM)
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        return [], [Problem(display, exc.lineno, f"malformed JSON export: {exc.msg}")]
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
        return [], [Problem(display, line, f"'bookmarks' must be a list, not {_kind(raw)}")]
    items: list[RestoreItem] = []
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for number, obj in enumerate(raw, start=1):
        try:
            item = _item(obj)
        except _Invalid as exc:
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
            e = item.entry
            cur = conn.execute(INSERT_ENTRY, entry_row(e, now))
            if cur.rowcount:
                report.new += 1
                report.new_ids.append(e.id)
            else:
                report.known += 1
            b = item.bookmark
            cur = conn.execute(
                "INSERT INTO bookmarks(entry_id, created_at, note) VALUES (?, ?, ?) "
                "ON CONFLICT(entry_id) DO UPDATE SET "
                "created_at = excluded.created_at, note = excluded.note "
                "WHERE bookmarks.created_at IS NOT excluded.created_at "
                "OR bookmarks.note IS NOT excluded.note",
                (b.entry_id, b.created_at, b.note),
            )
            if cur.rowcount:
                report.bookmarks_restored += 1
            else:
                report.bookmarks_unchanged += 1
    return report


def restore_file(store: Store, path: str | Path, display: str | None = None) -> RestoreReport:
    """Restore a JSON export into ``store``. Problems are reported, never raised; with any
    problem nothing is written."""
    display = display if display is not None else str(path)
    items, problems = read_export(path, display)
    if problems:
        return RestoreReport(rejected=len(problems), problems=problems)
    return restore_items(store, items)
