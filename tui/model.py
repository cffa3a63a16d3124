"""What the panes show: plain values the main screen builds from the store."""

from collections.abc import Sequence
from typing import Literal, NamedTuple

from topiclens.store.models import Bookmark, Entry, Record, Topic

# One line of the entry list: (id, title, source, date), the plain tuple SQLite returns:
# the garbage collector stops tracking it, which keeps full collections off topic
# switches at 100,000 entries (docs/reader.md, "Speed").
Row = tuple[str, str, str, str | None]


class Rows(NamedTuple):
    """A view's rows: its own entries, then the last ``also`` of them, entries whose topic
    is another but that are also listed here (a topic's "also here" rows); in a search's
    view, the entries that hold the query only as a concept (after a divider)."""

    rows: Sequence[Row]  # a list, or a topic's rows read a page at a time (store.pages)
    also: int = 0


class View(NamedTuple):
    """What the entry list shows: a topic, the bookmarks, search results, every unread
    entry newest first (the river) or a saved search (``query``: its name)."""

    kind: Literal["topic", "bookmarks", "search", "river", "saved"]
    topic_id: int | None = None
    query: str = ""

    @property
    def key(self) -> str:
        if self.kind == "topic":
            return f"topic-{self.topic_id}"
        if self.kind == "saved":
            return f"saved-{self.query}"
        return self.kind

    @property
    def searched(self) -> bool:
        """Its rows come from a search: read in a worker, a divider before the concept
        matches."""
        return self.kind in ("search", "saved")


class Detail(Record):
    """Everything the detail pane shows about one entry."""

    __slots__ = (
        "also",
        "bookmark",
        "content",
        "entry",
        "feed",
        "note",
        "read",
        "score",
        "similar",
        "terms",
        "topic",
    )

    def __init__(
        self,
        entry: Entry,
        topic: Topic | None = None,
        score: float = 0.0,
        terms: list[str] | None = None,
        similar: list[tuple[Row, float]] | None = None,
        bookmark: Bookmark | None = None,
        read: bool = False,
        also: list[Topic] | None = None,
        note: str = "",
        content: str = "",
        feed: str = "",
    ) -> None:
        self.entry = entry
        self.topic = topic
        self.score = score
        self.terms: list[str] = [] if terms is None else terms
        self.similar: list[tuple[Row, float]] = [] if similar is None else similar
        self.bookmark = bookmark
        self.read = read
        self.also: list[Topic] = [] if also is None else also  # the other topics it is also in
        self.note = note  # the user's note, kept whether the entry is bookmarked or not
        # a feed entry's: its whole content as terminal text, and its feed's name
        self.content = content
        self.feed = feed
