"""Plain data objects passed between the store, the clustering and the views."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

# Plain classes and NamedTuples, not dataclasses: a dataclass costs ~4M instructions
# (~1 ms) to create when the module is imported, because its methods are generated and
# compiled, and every start of the reader imported six of them (measured with valgrind).
# ImportReport stays one: store.restore's RestoreReport is a dataclass extending it.


class _Plain:
    """Equality and repr from ``_fields`` (the fields in order), as a dataclass gives them."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    __hash__ = None  # type: ignore[assignment]  # mutable, like a dataclass with eq

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self._fields)

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._fields)
        return f"{type(self).__name__}({fields})"


class Problem(NamedTuple):
    """Something wrong with an input file, pinned to a line (0 when the whole file)."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


class Entry(_Plain):
    """One entry of a digest: what it says (title, summary, comment) and where it came from."""

    _fields = (
        "id",
        "title",
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
        "title_given",
    )
    __slots__ = _fields

    def __init__(
        self,
        id: str,
        title: str,
        summary: str,
        comment: str = "",
        source: str = "",
        category: str = "",
        date: str | None = None,  # ISO YYYY-MM-DD
        url: str | None = None,
        lang: str = "zh",
        format: str = "",  # digest | listing | jsonl
        origin_file: str = "",
        origin_line: int = 0,
        extra: dict[str, Any] | None = None,
        title_given: bool = True,  # False when derived from the summary
    ) -> None:
        self.id = id
        self.title = title
        self.summary = summary
        self.comment = comment
        self.source = source
        self.category = category
        self.date = date
        self.url = url
        self.lang = lang
        self.format = format
        self.origin_file = origin_file
        self.origin_line = origin_line
        self.extra: dict[str, Any] = {} if extra is None else extra
        self.title_given = title_given

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


class ParseResult(_Plain):
    """The entries read from one file and the problems found in it."""

    _fields = ("path", "format", "entries", "problems")
    __slots__ = _fields

    def __init__(
        self,
        path: str,
        format: str,
        entries: list[Entry] | None = None,
        problems: list[Problem] | None = None,
    ) -> None:
        self.path = path
        self.format = format
        self.entries: list[Entry] = [] if entries is None else entries
        self.problems: list[Problem] = [] if problems is None else problems


@dataclass(slots=True)
class ImportReport:
    """What an import did: new, already known and rejected entries, with the problems
    (a dataclass still: store.restore's report extends it)."""

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


class Topic(NamedTuple):
    """A group of entries: its name, its top keywords with their weights, its size."""

    id: int
    name: str
    keywords: list[tuple[str, float]]
    size: int
    user_named: bool = False
    anchor: str | None = None


class Bookmark(NamedTuple):
    """A bookmarked entry, when it was bookmarked and the reader's note."""

    entry_id: str
    created_at: float
    note: str = ""
