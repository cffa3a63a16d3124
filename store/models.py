"""Plain data objects passed between the store, the clustering and the views."""

from typing import TYPE_CHECKING, Any, NamedTuple, Self

import orjson

from .text import entry_text

if TYPE_CHECKING:
    from .feed_record import Feed as Feed  # given by __getattr__ below

# The source formats an import reads (`import --format` forces one): defined here, where
# the command line can read them without loading the parsers at the reader's start.
SOURCE_FORMATS: tuple[str, ...] = ("digest", "listing", "jsonl", "feed")

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
    "feed_id",
    "feed_key",
    "author",
    "published",
    "date_first_seen",
    "content_start",
)


class Record:
    """A plain class of named fields (the ``__slots__`` of its class and of the records it
    extends), equal to another of its class with the same values, and shown with them.

    The records below are written out by hand rather than made by ``@dataclass``, which
    writes and compiles their methods anew in every process: a tenth of the reader's imports
    (the first frame waits for them)."""

    __slots__ = ()

    @classmethod
    def _fields(cls) -> tuple[str, ...]:
        """The names of its fields: the slots of each record class it is, base first."""
        return tuple(n for c in reversed(cls.__mro__) for n in c.__dict__.get("__slots__", ()))

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields())

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Record)
        return self._values() == other._values()

    __hash__ = None  # type: ignore[assignment]  # equal by values that may change

    def __repr__(self) -> str:
        values = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields())
        return f"{type(self).__name__}({values})"

    def replace(self, **changes: Any) -> Self:
        """A copy with ``changes`` (field name -> value): every field is an argument of
        ``__init__``."""
        return type(self)(**{**dict(zip(self._fields(), self._values(), strict=True)), **changes})


class Problem(NamedTuple):
    """Something wrong with an input file, pinned to a line (0 when the whole file)."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


class Entry(Record):
    """One entry of a digest: what it says (title, summary, comment) and where it came from."""

    __slots__ = (
        "author",
        "category",
        "comment",
        "content_start",
        "date",
        "date_first_seen",
        "extra",
        "feed_id",
        "feed_key",
        "format",
        "id",
        "lang",
        "origin_file",
        "origin_line",
        "published",
        "source",
        "summary",
        "title",
        "title_given",
        "url",
    )

    def __init__(
        self,
        id: str,
        title: str,
        summary: str,
        comment: str = "",
        source: str = "",
        category: str = "",
        date: str | None = None,
        url: str | None = None,
        lang: str = "zh",
        format: str = "",
        origin_file: str = "",
        origin_line: int = 0,
        extra: dict[str, Any] | None = None,
        title_given: bool = True,
        feed_id: int | None = None,
        feed_key: str | None = None,
        author: str = "",
        published: str | None = None,
        date_first_seen: bool = False,
        content_start: str = "",
    ) -> None:
        self.id = id
        self.title = title
        self.summary = summary
        self.comment = comment
        self.source = source
        self.category = category
        self.date = date  # ISO YYYY-MM-DD
        self.url = url
        self.lang = lang
        self.format = format  # digest | listing | jsonl
        self.origin_file = origin_file
        self.origin_line = origin_line
        self.extra: dict[str, Any] = {} if extra is None else extra
        self.title_given = title_given  # False when derived from the summary
        # from a feed: its feed's id (None for a file) and the entry's key inside that feed
        # (its guid or id, else its link, else a hash of its content)
        self.feed_id = feed_id
        self.feed_key = feed_key
        self.author = author
        self.published = published  # ISO 8601 UTC, to the second: YYYY-MM-DDTHH:MM:SSZ
        # True: the feed gave no date; date is when first seen
        self.date_first_seen = date_first_seen
        # the start of the whole content (stored apart, see store/feeds.py), past what the
        # summary already says: clustered with the title and summary
        self.content_start = content_start

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
            "feed": self.feed_id,
            "feed_key": self.feed_key,
            "author": self.author,
            "published": self.published,
            "date_first_seen": self.date_first_seen,
        }

    @classmethod
    def from_json(cls, obj: Any) -> "Entry":
        """The entry :meth:`to_json` wrote, every field checked (type, range, id shape);
        :class:`jsonvalues.Invalid` naming the first field that is wrong."""
        # the checks of input files and exports, which the reader's start never reads
        from .entry_json import entry_from_json

        return entry_from_json(obj)

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
            self.feed_id,
            self.feed_key,
            self.author,
            self.published,
            int(self.date_first_seen),
            self.content_start,
            imported_at,
        )

    @classmethod
    def from_row(cls, row: Any) -> "Entry":
        """The entry of a row of :data:`ENTRY_COLUMNS`."""
        (eid, title, title_given, summary, comment, source, category, date, url, lang, fmt,
         origin_file, origin_line, extra, feed_id, feed_key, author, published,
         first_seen, content_start) = row  # fmt: skip
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
            feed_id=feed_id,
            feed_key=feed_key,
            author=author,
            published=published,
            date_first_seen=bool(first_seen),
            content_start=content_start,
        )

    def text(self) -> str:
        """What the entry says, each part once (:func:`.text.entry_text`): the only text
        topics are made from (never its source, category, feed or author)."""
        return entry_text(
            self.title,
            self.summary,
            self.comment,
            self.content_start,
            title_given=self.title_given,
        )


ISO_TIME = "%Y-%m-%dT%H:%M:%SZ"  # how a time is stored: UTC, to the second


class Content(NamedTuple):
    """An entry's whole content, for the entry pane and the exports: as terminal text, and
    as sanitised HTML ("" when the source gave none)."""

    text: str
    html: str = ""


class ParseResult(Record):
    """The entries read from one file, the problems found in it, and notes (how it was
    read, when that was a choice)."""

    __slots__ = ("contents", "entries", "format", "notes", "path", "problems")

    def __init__(
        self,
        path: str,
        format: str,
        entries: list[Entry] | None = None,
        problems: list[Problem] | None = None,
        notes: list[Problem] | None = None,
        contents: dict[str, Content] | None = None,
    ) -> None:
        self.path = path
        self.format = format
        self.entries: list[Entry] = [] if entries is None else entries
        self.problems: list[Problem] = [] if problems is None else problems
        self.notes: list[Problem] = [] if notes is None else notes
        # entry id -> its content
        self.contents: dict[str, Content] = {} if contents is None else contents


class ImportReport(Record):
    """What an import did: new, already known and rejected entries, with the problems and
    the notes (not errors: how a file was read when that was a choice)."""

    __slots__ = ("known", "new", "new_ids", "notes", "problems", "rejected")

    def __init__(
        self,
        new: int = 0,
        known: int = 0,
        rejected: int = 0,
        problems: list[Problem] | None = None,
        new_ids: list[str] | None = None,
        notes: list[Problem] | None = None,
    ) -> None:
        self.new = new
        self.known = known
        self.rejected = rejected
        self.problems: list[Problem] = [] if problems is None else problems
        self.new_ids: list[str] = [] if new_ids is None else new_ids
        self.notes: list[Problem] = [] if notes is None else notes

    def add(self, other: "ImportReport") -> None:
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


FEED_STATUSES: tuple[str, ...] = ("ok", "error", "gone")


def __getattr__(name: str) -> Any:
    # the feeds' record is made on its first use (a NamedTuple of 18 fields costs some 2M
    # instructions to make, and the reader's first frame shows no feed)
    if name == "Feed":
        from .feed_record import Feed

        return Feed
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
