"""Reading a JSON export back in: ``topiclens import bookmarks.json`` restores a backup.

A file is a topiclens export when it is one JSON object whose ``format`` is
``topiclens-bookmarks`` (recognised from the content, never from the name). A document that
is no usable export at all (malformed JSON, an unknown or newer ``version``, ``bookmarks``
not a list) changes nothing and gives one problem, ``file:line: what is wrong``. Within a
usable export each bookmark (its entry and its own fields) is checked on its own: a bad one
is refused as ``file:line: bookmark N: what is wrong`` (the line of its entry), and every
good one is restored in one transaction, which adds the entries the store lacks (with their
original ids, so bookmarks match) and sets each bookmark's time and note exactly as
exported. Bookmarks already in the store that the export does not mention are kept. The
export's ``notes`` (notes kept on entries no longer bookmarked) come back as notes only; a
bad one is refused as ``file:line: note N: what is wrong`` (the line of ``notes``). Its
``corrections`` to the topics come back whole, or not at all with one problem."""

from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from . import bookmarks, corrections, entries, restore_feeds
from . import restore_views as views
from .db import Store
from .export import EXPORT_FORMAT, EXPORT_VERSION
from .export_layout import layout as _layout
from .export_layout import line_numbers as _line_numbers
from .jsonvalues import INT_MAX, MAX_DEPTH, Invalid, depth, is_huge_int, kind, leaves, too_deep
from .jsonvalues import seconds as _bookmarked_at
from .models import Bookmark, Content, Entry, ImportReport, Problem
from .reading import BOM, read_source

# Enough of the head of a file to find the marker of an indented export.
_HEAD_BYTES = 4096
_MARKER = re.compile(rb'"format"\s*:\s*"' + re.escape(EXPORT_FORMAT.encode()) + rb'"')
# orjson reads integers beyond 64 bits as floats without a word: a run of 19 or more digits
# sends the document through the exact standard parser to find them.
_LONG_DIGITS = re.compile(rb"\d{19,}")
# Numbers, and strings matched whole so that digits inside them are left alone.
_NUMBER_OR_TEXT = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?')


class RestoreReport(ImportReport):
    """An import report that also counts bookmarks: restored (added, or given back their
    exported time or note) and unchanged (already exactly as exported). ``rejected``
    counts the bookmarks refused (or 1 for a document that is no usable export)."""

    __slots__ = (
        "bookmarks_restored",
        "bookmarks_unchanged",
        "corrections_restored",
        "mute_rules_restored",
        "notes_restored",
        "searches_restored",
    )

    def __init__(self, **import_report: Any) -> None:
        super().__init__(**import_report)  # new, known, rejected, problems, new_ids, notes
        self.bookmarks_restored = 0
        self.bookmarks_unchanged = 0
        self.notes_restored = 0  # notes on entries not bookmarked, given back their text
        self.corrections_restored = 0  # topic corrections and pins (store/corrections.py)
        self.searches_restored = 0  # saved searches added or given back their query
        self.mute_rules_restored = 0  # mute rules added


@dataclass(frozen=True, slots=True)
class RestoreItem:
    entry: Entry
    bookmark: Bookmark  # for a note alone, its time and text
    bookmarked: bool = True  # False: a note kept on an entry that is not bookmarked
    from_topic: object = views.MISSING  # the topic it was bookmarked from, when said
    content: Content | None = None  # a feed entry's whole content
    feed: restore_feeds.FeedRef | None = None  # the feed a feed entry came from


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


def _exact_int(digits: str) -> int:
    # past 20 characters an integer is beyond 64 bits anyway, and Python refuses to
    # convert one of more than 4,300 digits
    return int(digits) if len(digits) <= 20 else INT_MAX + 1


def _tame(match: re.Match[bytes]) -> bytes:
    # a number a double cannot hold (orjson refuses the whole document for it) becomes 0,
    # in a copy only read to check the rest of the document
    token = match.group()
    return b"0" if token[:1] != b'"' and math.isinf(float(token)) else token


def _unstorable(value: Any, where: str) -> str | None:
    """What is wrong with the first number in ``value`` (read exactly) that cannot be
    stored: an integer beyond 64 bits, or a number beyond what a double holds."""
    for item, at in leaves(value, where):
        if is_huge_int(item):
            return f"{at or 'entry'!r} is an integer beyond 64 bits"
        if isinstance(item, float) and math.isinf(item):
            return f"{at or 'entry'!r} is a number too large to store"
    return None


def _item(obj: Any, exact: bool, bookmarked: bool = True) -> RestoreItem:
    """One bookmark (or, not ``bookmarked``, one note of the export's ``notes``), every
    field checked; :class:`Invalid` naming the first that is wrong. ``exact``: numbers
    were read exactly, so those that cannot be stored can be found."""
    if not isinstance(obj, dict):
        what = "a bookmark" if bookmarked else "a note"
        raise Invalid(f"{what} must be an object, not {kind(obj)}")
    for key, value in obj.items():
        # the same limit as a line of JSON Lines, so an exported entry always comes back
        levels = depth(value)
        if levels > MAX_DEPTH:
            raise Invalid(f"{key[:40]!r} nested {levels} levels deep (at most {MAX_DEPTH})")
        # (the entry's fields named as Entry.from_json names them: 'origin.line')
        wrong = _unstorable(value, "" if key == "entry" else key[:40]) if exact else None
        if wrong is not None:
            raise Invalid(wrong)
    if "entry" not in obj:
        raise Invalid("missing 'entry'")
    entry = Entry.from_json(obj["entry"])
    key = "bookmarked_at" if bookmarked else "noted_at"
    when = _bookmarked_at(obj.get(key), key)
    note = obj.get("note", "")
    if note is None:
        note = ""
    if not isinstance(note, str):
        raise Invalid(f"'note' must be a string, not {kind(note)}")
    content, feed = restore_feeds.extras(obj["entry"])
    return RestoreItem(
        entry,
        Bookmark(entry.id, when, note),
        bookmarked,
        from_topic=views.from_topic(obj),
        content=content,
        feed=feed,
    )


def read_export(
    path: str | Path, display: str | None = None
) -> tuple[list[RestoreItem], list[Problem]]:
    """The bookmarks of the export at ``path`` (see :func:`read_export_data`)."""
    display = display if display is not None else str(path)
    data = read_source(path, display)
    if isinstance(data, Problem):
        return [], [data]
    return read_export_data(data, display)


def _document(data: bytes, display: str) -> tuple[dict[str, Any], bool] | Problem:
    """The export as a dict and whether its numbers were read exactly (then those that
    cannot be stored are left for each bookmark's check to find), or the one problem that
    makes it no usable export."""
    try:
        try:
            doc = orjson.loads(data)
            exact = bool(_LONG_DIGITS.search(data))
        except orjson.JSONDecodeError as exc:
            if "infinity" not in str(exc):
                raise
            orjson.loads(_NUMBER_OR_TEXT.sub(_tame, data))  # everything else is checked
            exact = True
        if exact:
            doc = json.loads(data, parse_int=_exact_int)
    except orjson.JSONDecodeError as exc:
        what = "nested too deeply" if too_deep(exc) else exc.msg
        line = exc.lineno
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as bad:
            # orjson checks the encoding before the syntax and says line 1: name the
            # line of the first byte that is not UTF-8 (a file cut inside a character)
            line = data.count(b"\n", 0, bad.start) + 1
            what = f"not valid UTF-8 (byte {bad.start})"
        return Problem(display, line, f"malformed JSON export: {what}")
    except RecursionError:  # the standard parser gives up sooner than orjson
        return Problem(display, 0, "malformed JSON export: nested too deeply")
    if not isinstance(doc, dict) or doc.get("format") != EXPORT_FORMAT:
        return Problem(display, 0, f"not a topiclens export (no format {EXPORT_FORMAT!r})")
    return doc, exact


def _top_problem(doc: dict[str, Any]) -> tuple[str, str] | None:
    """(the top-level key, what is wrong with it) when the export cannot be read at all."""
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        return "version", f"'version' must be a whole number, not {repr(version)[:40]}"
    if version > EXPORT_VERSION:
        return "version", (
            f"written by a newer topiclens (export version {version}; this version "
            f"reads up to {EXPORT_VERSION}); upgrade topiclens to import it"
        )
    if not isinstance(doc.get("bookmarks"), list):
        return "bookmarks", f"'bookmarks' must be a list, not {kind(doc.get('bookmarks'))}"
    if not isinstance(doc.get("notes", []), list):
        return "notes", f"'notes' must be a list, not {kind(doc.get('notes'))}"
    return None


def read_export_data(data: bytes, display: str) -> tuple[list[RestoreItem], list[Problem]]:
    """The good bookmarks of an export and a problem for each bad one; for a document that
    is no usable export, no bookmarks and the one problem (nothing of it is restored)."""
    data = data.removeprefix(BOM)
    found = _document(data, display)
    if isinstance(found, Problem):
        return [], [found]
    doc, exact = found
    top = _top_problem(doc)
    if top is not None:
        text = data.decode("utf-8", errors="replace")
        keys, _ = _layout(text)
        offset = keys.get(top[0])
        line = _line_numbers(text, [offset])[offset] if offset is not None else 0
        return [], [Problem(display, line, top[1])]
    items: list[RestoreItem] = []
    refused: list[tuple[int, str]] = []  # (bookmark number, what is wrong)
    seen: dict[str, int] = {}
    for number, obj in enumerate(doc["bookmarks"], start=1):
        try:
            item = _item(obj, exact)
        except Invalid as exc:
            refused.append((number, exc.message))
            continue
        if item.entry.id in seen:
            refused.append(
                (number, f"entry {item.entry.id} is already bookmark {seen[item.entry.id]}")
            )
            continue
        seen[item.entry.id] = number
        items.append(item)
    problems = _pinned(data, display, refused)
    notes, wrong = _notes(doc, exact, set(seen))
    if wrong:  # on the line of the "notes" key
        text = data.decode("utf-8", errors="replace")
        offset = _layout(text)[0]["notes"]
        problems += [Problem(display, _line_numbers(text, [offset])[offset], w) for w in wrong]
    return items + notes, problems


def _notes(doc: dict[str, Any], exact: bool, seen: set[str]) -> tuple[list[RestoreItem], list[str]]:
    """The good notes of the export's ``notes`` (kept on entries not bookmarked) and what
    is wrong with each bad one."""
    items: list[RestoreItem] = []
    wrong: list[str] = []
    for number, obj in enumerate(doc.get("notes", []), start=1):
        try:
            item = _item(obj, exact, bookmarked=False)
            if item.entry.id in seen:
                raise Invalid(f"entry {item.entry.id} is already in the export")
        except Invalid as exc:
            wrong.append(f"note {number}: {exc.message}")
            continue
        seen.add(item.entry.id)
        items.append(item)
    return items, wrong


def _pinned(data: bytes, display: str, refused: list[tuple[int, str]]) -> list[Problem]:
    """A problem for each refused bookmark, on the line of its entry (the text is scanned
    only when something was refused, and only as far as the last refused bookmark)."""
    if not refused:
        return []
    text = data.decode("utf-8", errors="replace")
    _, marks = _layout(text, upto=max(number for number, _ in refused))
    offsets = [marks[n - 1] if n <= len(marks) else -1 for n, _ in refused]
    lines = _line_numbers(text, [o for o in offsets if o >= 0])
    return [
        Problem(display, lines.get(offset, 0), f"bookmark {number}: {message}")
        for offset, (number, message) in zip(offsets, refused, strict=True)
    ]


def restore_items(store: Store, items: list[RestoreItem]) -> RestoreReport:
    """One transaction: entries the store lacks are added with their ids; each bookmark
    gets exactly its exported time and note. All of them land, or (on a crash) none."""
    report = RestoreReport()
    now = time.time()
    with store.write() as conn:
        for item in restore_feeds.settle(conn, items, now):
            if entries.insert(conn, item.entry, now):
                report.new += 1
                report.new_ids.append(item.entry.id)
                restore_feeds.put_content(conn, item)
            else:
                report.known += 1
            if not item.bookmarked:
                b = item.bookmark
                report.notes_restored += bookmarks.put_note(conn, b.entry_id, b.note, b.created_at)
            elif bookmarks.put_exact(conn, item.bookmark) | views.put_from_topic(
                conn, item.entry.id, item.from_topic
            ):
                report.bookmarks_restored += 1
            else:
                report.bookmarks_unchanged += 1
    return report


def restore_data(store: Store, data: bytes, display: str) -> RestoreReport:
    """Restore an export already read whole. Problems are reported, never raised: a
    document that is no usable export changes nothing; in one that is, the good bookmarks
    are restored and each bad one is counted in ``rejected`` with its problem."""
    items, problems = read_export_data(data, display)
    report = restore_items(store, items) if items else RestoreReport()
    report.corrections_restored, problem = corrections.restore(store, data, display)
    problems += [problem] if problem else []
    report.searches_restored, report.mute_rules_restored, wrong = views.restore(
        store, data, display
    )
    problems += wrong
    report.rejected = len(problems)
    report.problems = problems
    return report


def restore_file(store: Store, path: str | Path, display: str | None = None) -> RestoreReport:
    """Restore the JSON export at ``path`` into ``store`` (see :func:`restore_data`)."""
    display = display if display is not None else str(path)
    data = read_source(path, display)
    if isinstance(data, Problem):
        return RestoreReport(rejected=1, problems=[data])
    return restore_data(store, data, display)
