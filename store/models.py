"""Plain data objects passed between the store, the clustering and the views."""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import orjson

from . import jsonvalues

# The source formats an import reads (`import --format` forces one): defined here, where
# the command line can read them without loading the parsers at the reader's start.
SOURCE_FORMATS: tuple[str, ...] = ("digest", "listing", "jsonl")

# The entries table's columns, in the order of :meth:`Entry.to_row` and :meth:`Entry.from_row`.
ENTRY_COLUMNS: tuple[str, ...] = (
    "id",
    "title",
    "title_given",
    "summary",
    "comment",
    "source",
    "category",
    "date",
    "url",
    "lang",
    "format",
    "origin_file",
    "origin_line",
    "extra",
)
ENTRY_ID = re.compile(r"[0-9a-f]{16}")  # what store.text.entry_id makes


class Problem(NamedTuple):
    """Something wrong with an input file, pinned to a line (0 when the whole file)."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


@dataclass(slots=True)
class Entry:
    """One entry of a digest: what it says (title, summary, comment) and where it came from."""

    id: str
    title: str
    summary: str
    comment: str = ""
    source: str = ""
    category: str = ""
    date: str | None = None  # ISO YYYY-MM-DD
    url: str | None = None
    lang: str = "zh"
    format: str = ""  # digest | listing | jsonl
    origin_file: str = ""
    origin_line: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    title_given: bool = True  # False when derived from the summary

    def to_json(self) -> dict[str, Any]:
        """Every field, as ``topiclens entries --json`` and the JSON export write it."""
        return {
            "id": self.id,
            "title": self.title,
            "title_given": self.title_given,
            "summary": self.summary,
            "comment": self.comment,
            "source": self.source,
            "category": self.category,
            "date": self.date,
            "url": self.url,
            "lang": self.lang,
            "format": self.format,
            "origin": {"file": self.origin_file, "line": self.origin_line},
            "extra": self.extra,
        }

    @classmethod
    def from_json(cls, obj: Any) -> Entry:
        """The entry :meth:`to_json` wrote, every field checked (type, range, id shape);
        :class:`jsonvalues.Invalid` naming the first field that is wrong."""
        check = jsonvalues
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
            raise check.Invalid(
                f"'title_given' must be true or false, not {check.kind(title_given)}"
            )
        origin = obj.get("origin") or {}
        if not isinstance(origin, dict):
            raise check.Invalid(f"'origin' must be an object, not {check.kind(origin)}")
        extra = obj.get("extra") or {}
        if not isinstance(extra, dict):
            raise check.Invalid(f"'extra' must be an object, not {check.kind(extra)}")
        return cls(
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
        )

    def to_row(self, imported_at: float) -> tuple[Any, ...]:
        """The entries row: :data:`ENTRY_COLUMNS`, then ``imported_at``."""
        return (
            self.id,
            self.title,
            int(self.title_given),
            self.summary,
            self.comment,
            self.source,
            self.category,
            self.date,
            self.url,
            self.lang,
            self.format,
            self.origin_file,
            self.origin_line,
            orjson.dumps(self.extra).decode() if self.extra else "{}",
            imported_at,
        )

    @classmethod
    def from_row(cls, row: Any) -> Entry:
        """The entry of a row of :data:`ENTRY_COLUMNS`."""
        (eid, title, title_given, summary, comment, source, category, date, url, lang, fmt,
         origin_file, origin_line, extra) = row  # fmt: skip
        return cls(
            id=eid,
            title=title,
            title_given=bool(title_given),
            summary=summary,
            comment=comment,
            source=source,
            category=category,
            date=date,
            url=url,
            lang=lang,
            format=fmt,
            origin_file=origin_file,
            origin_line=origin_line,
            extra=orjson.loads(extra) if extra else {},
        )

    def text(self) -> str:
        """What the entry says: the only text topics are made from."""
        return "\n".join(part for part in (self.title, self.summary, self.comment) if part)


def _is_iso_date(text: str) -> bool:
    try:
        return _dt.date.fromisoformat(text).isoformat() == text
    except ValueError:
        return False


@dataclass(slots=True)
class ParseResult:
    """The entries read from one file, the problems found in it, and notes (how it was
    read, when that was a choice)."""

    path: str
    format: str
    entries: list[Entry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notes: list[Problem] = field(default_factory=list)


@dataclass(slots=True)
class ImportReport:
    """What an import did: new, already known and rejected entries, with the problems and
    the notes (not errors: how a file was read when that was a choice)."""

    new: int = 0
    known: int = 0
    rejected: int = 0
    problems: list[Problem] = field(default_factory=list)
    new_ids: list[str] = field(default_factory=list)
    notes: list[Problem] = field(default_factory=list)

    def add(self, other: ImportReport) -> None:
        self.new += other.new
        self.known += other.known
        self.rejected += other.rejected
        self.problems.extend(other.problems)
        self.new_ids.extend(other.new_ids)
        self.notes.extend(other.notes)


class Topic(NamedTuple):
    """A group of entries: its name, its top keywords with their weights, its size (its
    primary members), how much its entries share (``cohesion``, 0..1, measured by the
    clustering; None when unknown) and whether they share little (``mixed``)."""

    id: int
    name: str
    keywords: list[tuple[str, float]]
    size: int
    user_named: bool = False
    anchor: str | None = None
    cohesion: float | None = None
    mixed: bool = False


class Bookmark(NamedTuple):
    """A bookmarked entry, when it was bookmarked and the reader's note."""

    entry_id: str
    created_at: float
    note: str = ""


class Assignment(NamedTuple):
    """Why an entry is in its topic: the topic, how near it is, and the terms tying them."""

    topic_id: int
    score: float
    terms: list[str]
