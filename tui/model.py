"""What the panes show: plain values the main screen builds from the store."""

from __future__ import annotations

from typing import Literal, NamedTuple

from topiclens.store.models import Bookmark, Entry, Topic

# One line of the entry list: (id, title, source, date), a plain tuple as SQLite returns
# it. Not a NamedTuple: the cyclic garbage collector stops tracking a plain tuple of
# strings, never a tuple subclass, and the rows of the last 16 topics (tens of thousands)
# made every full collection walk them: ~30 ms, in one topic switch in fifteen at 100,000
# entries (bench/bench_reader.py with gc.callbacks), which set the switches' 95th
# percentile.
Row = tuple[str, str, str, str | None]


# The reader's value types are NamedTuples or plain classes, not dataclasses: a frozen
# dataclass costs ~1 ms to create at import (its methods are generated and compiled), a
# NamedTuple a fifth of that (valgrind).
class View(NamedTuple):
    """What the entry list shows: a topic, the bookmarks or search results."""

    kind: Literal["topic", "bookmarks", "search"]
    topic_id: int | None = None
    query: str = ""

    @property
    def key(self) -> str:
        if self.kind == "topic":
            return f"topic-{self.topic_id}"
        return self.kind


class Detail:
    """Everything the detail pane shows about one entry (a plain class: see View)."""

    __slots__ = ("bookmark", "entry", "read", "score", "similar", "terms", "topic")

    def __init__(
        self,
        entry: Entry,
        topic: Topic | None = None,
        score: float = 0.0,
        terms: list[str] | None = None,
        similar: list[tuple[Row, float]] | None = None,
        bookmark: Bookmark | None = None,
        read: bool = False,
    ) -> None:
        self.entry = entry
        self.topic = topic
        self.score = score
        self.terms: list[str] = terms if terms is not None else []
        self.similar: list[tuple[Row, float]] = similar if similar is not None else []
        self.bookmark = bookmark
        self.read = read
