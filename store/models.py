"""Plain data objects passed between the store, the clustering and the views."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong with an input file, pinned to a line (0 when the whole file)."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


@dataclass(slots=True)
class Entry:
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

    def text(self) -> str:
        """What the entry says: the only text topics are made from."""
        return "\n".join(part for part in (self.title, self.summary, self.comment) if part)


@dataclass(slots=True)
class ParseResult:
    path: str
    format: str
    entries: list[Entry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


@dataclass(slots=True)
class ImportReport:
    new: int = 0
    known: int = 0
    rejected: int = 0
    problems: list[Problem] = field(default_factory=list)
    new_ids: list[str] = field(default_factory=list)

    def add(self, other: ImportReport) -> None:
        self.new += other.new
        self.known += other.known
        self.rejected += other.rejected
        self.problems.extend(other.problems)
        self.new_ids.extend(other.new_ids)


@dataclass(frozen=True, slots=True)
class Topic:
    id: int
    name: str
    keywords: list[tuple[str, float]]
    size: int
    user_named: bool = False
    anchor: str | None = None


@dataclass(frozen=True, slots=True)
class Bookmark:
    entry_id: str
    created_at: float
    note: str = ""
