"""A topic's rows read a page at a time: what the reader shows costs what one screen of it
costs, whatever the topic's size.

A topic's rows are kept in reading order in ``topic_list`` (its own entries) and
``topic_also_list`` (those also listed under it), each keyed by (topic, undated, date
DESC, entry rowid). :class:`TopicRows` is a sequence over both: its length comes from a
count over the key (no row is read), and a row is read with its page, found by keyset
from a neighbouring page already read (a cursor moving down or up), or by its offset from
the nearer end (a jump). Iterating or slicing reads the whole list at once (a sort, a
filter, a search through it)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, overload

from . import mute
from .connection import Database
from .queries import EntryRow, topic_rows
from .schema import TOPIC_LIST_ORDER

PAGE_ROWS = 128  # rows read at a time: a few screens, well under a millisecond
_REVERSED = "undated DESC, date ASC, entry_rowid DESC"
_COLUMNS = "entry_id, title, source, CASE WHEN undated THEN NULL ELSE date END"
Key = tuple[int, str, int]  # (undated, date, entry_rowid): a row's place in reading order


class _Segment:
    """One table's rows of a topic (its own, or its also rows), a page at a time."""

    def __init__(self, db: Database, topic_id: int, table: str) -> None:
        self.db = db
        self.topic_id = topic_id
        self.table = table
        hidden = mute.clause(db, "l.entry_id")
        self.where, self.params = (f"AND NOT {hidden[0]} ", hidden[1]) if hidden else ("", [])
        (self.size,) = db.query(
            f"SELECT count(*) FROM {table} l WHERE topic_id = ? {self.where}",
            (topic_id, *self.params),
        )[0]
        self.pages: dict[int, list[EntryRow]] = {}
        self.keys: dict[int, tuple[Key, Key]] = {}  # page -> keys of its first and last row

    def row(self, index: int) -> EntryRow:
        page = index // PAGE_ROWS
        if page not in self.pages:
            self._read(page)
        return self.pages[page][index % PAGE_ROWS]

    def _read(self, page: int) -> None:
        want = min(PAGE_ROWS, self.size - page * PAGE_ROWS)
        if page - 1 in self.keys:
            found = self._after(self.keys[page - 1][1], want)
        elif page + 1 in self.keys:
            found = self._before(self.keys[page + 1][0], want)[::-1]
        elif page * PAGE_ROWS <= self.size - (page * PAGE_ROWS + want):
            found = self._select(TOPIC_LIST_ORDER, "", [], want, page * PAGE_ROWS)
        else:  # nearer the end: read backwards from it
            skip = self.size - page * PAGE_ROWS - want
            found = self._select(_REVERSED, "", [], want, skip)[::-1]
        rows: list[EntryRow] = [r[3:] for r in found]
        if len(rows) == want:
            self.keys[page] = (tuple(found[0][:3]), tuple(found[-1][:3]))
        else:  # the store changed under the list (it is read again): never fail a frame
            rows += [("", "", "", None)] * (want - len(rows))
        self.pages[page] = rows

    def _after(self, key: Key, limit: int) -> list[Any]:
        """Up to ``limit`` rows after ``key`` in reading order: three seeks on the key
        (the same day, older days, then the undated), each stopping at ``limit``."""
        undated, date, rowid = key
        return self._union(
            [
                ("undated = ? AND date = ? AND entry_rowid > ?", [undated, date, rowid]),
                ("undated = ? AND date < ?", [undated, date]),
                ("undated > ?", [undated]),
            ],
            TOPIC_LIST_ORDER,
            limit,
        )

    def _before(self, key: Key, limit: int) -> list[Any]:
        """Up to ``limit`` rows before ``key``, nearest first."""
        undated, date, rowid = key
        return self._union(
            [
                ("undated = ? AND date = ? AND entry_rowid < ?", [undated, date, rowid]),
                ("undated = ? AND date > ?", [undated, date]),
                ("undated < ?", [undated]),
            ],
            _REVERSED,
            limit,
        )

    def _union(self, parts: list[tuple[str, list[Any]]], order: str, limit: int) -> list[Any]:
        found: list[Any] = []
        for condition, params in parts:
            found += self._select(order, f"AND {condition} ", params, limit - len(found), 0)
            if len(found) >= limit:
                break
        return found

    def _select(
        self, order: str, extra: str, params: list[Any], limit: int, skip: int
    ) -> list[Any]:
        return self.db.query(
            f"SELECT undated, date, entry_rowid, {_COLUMNS} FROM {self.table} l "
            f"WHERE topic_id = ? {extra}{self.where}ORDER BY {order} LIMIT ? OFFSET ?",
            (self.topic_id, *params, *self.params, limit, skip),
        )

    def index_of(self, entry_id: str) -> int | None:
        """Where ``entry_id`` is in this segment: a count of the rows before it."""
        found = self.db.query(
            f"SELECT undated, date, entry_rowid FROM {self.table} WHERE topic_id = ? "
            "AND entry_id = ?",
            (self.topic_id, entry_id),
        )
        if not found:
            return None
        undated, date, rowid = found[0]
        (before,) = self.db.query(
            f"SELECT count(*) FROM {self.table} l WHERE topic_id = ? AND (undated < ? OR "
            "(undated = ? AND (date > ? OR (date = ? AND entry_rowid < ?)))) "
            f"{self.where}",
            (self.topic_id, undated, undated, date, date, rowid, *self.params),
        )[0]
        return int(before)


class TopicRows(Sequence[EntryRow]):
    """A topic's rows (its own, then its also rows), read a page at a time on demand."""

    def __init__(self, db: Database, topic_id: int) -> None:
        self.db = db
        self.topic_id = topic_id
        self._own = _Segment(db, topic_id, "topic_list")
        self._also = _Segment(db, topic_id, "topic_also_list")
        self._all: list[EntryRow] | None = None

    @property
    def also(self) -> int:
        """How many of the rows, at the end, are also rows."""
        return self._also.size

    @property
    def pages_read(self) -> int:
        return len(self._own.pages) + len(self._also.pages)

    def __len__(self) -> int:
        return self._own.size + self._also.size

    @overload
    def __getitem__(self, index: int) -> EntryRow: ...

    @overload
    def __getitem__(self, index: slice) -> list[EntryRow]: ...

    def __getitem__(self, index: int | slice) -> EntryRow | list[EntryRow]:
        if isinstance(index, slice):
            return self.whole()[index]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        if self._all is not None:
            return self._all[index]
        own = self._own.size
        return self._own.row(index) if index < own else self._also.row(index - own)

    def __iter__(self) -> Iterator[EntryRow]:
        return iter(self.whole())

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence of the same rows (a list read whole, say)."""
        if isinstance(other, Sequence) and not isinstance(other, str):
            return self.whole() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # (mutable: its pages are read as needed)

    def whole(self) -> list[EntryRow]:
        """Every row, read in two queries (then kept)."""
        if self._all is None:
            rows = topic_rows(self.db, self.topic_id) + topic_rows(
                self.db, self.topic_id, also=True
            )
            self._all = rows
        return self._all

    def index_of(self, entry_id: str) -> int | None:
        """Where ``entry_id`` is in the rows, found by the store (no page read)."""
        if self._all is not None:
            return next((i for i, r in enumerate(self._all) if r[0] == entry_id), None)
        found = self._own.index_of(entry_id)
        if found is not None:
            return found
        found = self._also.index_of(entry_id)
        return None if found is None else self._own.size + found


def index_of(rows: Sequence[EntryRow], entry_id: str) -> int | None:
    """Where the row of ``entry_id`` is in ``rows`` (a list, or a :class:`TopicRows`)."""
    if isinstance(rows, TopicRows):
        return rows.index_of(entry_id)
    return next((i for i, r in enumerate(rows) if r[0] == entry_id), None)
