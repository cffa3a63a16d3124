"""What the reader's detail pane reads about one entry besides the entry itself, in one
query: its place in its topic, its similar entries, its bookmark and its note (four
queries on their own, each a round trip through the connection's lock and retry)."""

import orjson

from .connection import Database
from .models import Assignment, Bookmark, Record
from .similar_rows import read as read_similar


class EntryMarks(Record):
    """:meth:`Store.assignment`, :meth:`Store.similar`, :meth:`Store.bookmark` and
    :meth:`Store.note` of one entry, read together."""

    __slots__ = ("assignment", "bookmark", "note", "similar")

    def __init__(
        self,
        assignment: Assignment | None,
        similar: list[tuple[str, float]],
        bookmark: Bookmark | None,
        note: str,
    ) -> None:
        self.assignment = assignment
        self.similar = similar
        self.bookmark = bookmark
        self.note = note


# one row whatever the entry has: each table joined to the id on its own
_SELECT = (
    "SELECT a.topic_id, a.score, a.terms, a.similar, b.created_at, n.note "
    "FROM (SELECT ? AS id) x "
    "LEFT JOIN topic_assignments a ON a.entry_id = x.id "
    "LEFT JOIN bookmarks b ON b.entry_id = x.id "
    "LEFT JOIN notes n ON n.entry_id = x.id"
)


def entry_marks(db: Database, entry_id: str) -> EntryMarks:
    """The entry's place, similar entries, bookmark and note (see :class:`EntryMarks`)."""
    topic_id, score, terms, similar, bookmarked_at, note = db.query(_SELECT, (entry_id,))[0]
    note = note if note is not None else ""
    return EntryMarks(
        assignment=None if topic_id is None else Assignment(topic_id, score, orjson.loads(terms)),
        similar=[] if similar is None else read_similar(similar),
        bookmark=None if bookmarked_at is None else Bookmark(entry_id, bookmarked_at, note),
        note=note,
    )
