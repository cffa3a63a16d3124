"""A topic's rows read a page at a time: what the reader shows costs what one screen of it
costs, whatever the topic's size.

A topic's rows are kept in reading order in ``topic_list`` (its own entries) and
``topic_also_list`` (those also listed under it), each keyed by (topic, undated, date
DESC, entry rowid). :class:`TopicRows` is a sequence over both, and a row is read with its
page, found by keyset from a neighbouring page already read (a cursor moving down or up),
or by its offset from the nearer end (a jump). Iterating or slicing reads the whole list at
once (a sort, a filter, a search through it).

Each segment's length is the topic's stored count of its rows (``topics.size`` for its own
rows, ``topics.also_size`` for its also rows, each kept by every write), not a count:
counting a topic of 90,000 rows reads its whole range, 100 ms from a cold disk, where its
first page costs under one. While a size is unchecked, its pages are read forward from the
start only (by keyset, or by offset from the start), each with one row more than it needs,
so a list longer or shorter than the size shows as a page with a row too many or too few;
then the rows are counted and the page read again. The last page read whole proves the
size, and so does a count before a jump into the far half of the list (skipping there
would cost as much); the own rows' size is proved before an also row is placed after them. With a
mute rule the rows are counted (the stored sizes count muted entries too)."""

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

    def __init__(self, db: Database, topic_id: int, table: str, stated: int | None = None) -> None:
        self.db = db
        self.topic_id = topic_id
        self.table = table
        hidden = mute.clause(db, "l.entry_id")
        self.where, self.params = (f"AND NOT {hidden[0]} ", hidden[1]) if hidden else ("", [])
        # the stated size holds no muted rows out: with a rule, count
        self.checked = stated is None or hidden is not None
        self.size = self._count() if self.checked else max(0, int(stated or 0))
        self.pages: dict[int, list[EntryRow]] = {}
        self.keys: dict[int, tuple[Key, Key]] = {}  # page -> keys of its first and last row

    def _count(self) -> int:
        (size,) = self.db.query(
            f"SELECT count(*) FROM {self.table} l WHERE topic_id = ? {self.where}",
            (self.topic_id, *self.params),
        )[0]
        return int(size)

    def recount(self) -> bool:
        """Count the rows when the size is unchecked; True when that changed the size (the
        pages read are dropped: their places may have moved)."""
        if self.checked:
            return False
        self.checked = True
        size = self._count()
        if size == self.size:
            return False
        self.size = size
        self.pages.clear()
        self.keys.clear()
        return True

    def prove(self) -> None:
        """Make sure of the size (before a row after this segment is placed by it): its
        last page, read with the row after it, proves it or finds it wrong."""
        if not self.checked and self.size:
            self.row(self.size - 1)
        self.recount()  # (nothing left to count once proved)

    def row(self, index: int) -> EntryRow | None:
        """The row at ``index``; None when reading it found the stated size wrong (the
        size is counted now: the caller asks again, or finds ``index`` past the end)."""
        page = index // PAGE_ROWS
        if page not in self.pages:
            size = self.size
            self._read(page)
            if self.size != size:
                return None
        return self.pages[page][index % PAGE_ROWS]

    def _read(self, page: int) -> None:
        alone = page - 1 not in self.keys and page + 1 not in self.keys
        if not self.checked and alone and 2 * page * PAGE_ROWS > self.size:
            # a jump into the far half: counting costs what skipping that far would, and
            # the page is then read from the end
            self.recount()
            if page * PAGE_ROWS >= self.size:
                return
        start = page * PAGE_ROWS
        want = min(PAGE_ROWS, self.size - start)
        more = 0 if self.checked else 1  # the row after the page: is the list longer?
        expected = min(want + more, self.size - start)
        if page - 1 in self.keys:
            found = self._after(self.keys[page - 1][1], want + more)
        elif page + 1 in self.keys:
            found = self._before(self.keys[page + 1][0], want)[::-1]
            expected = want
        elif not self.checked or start <= self.size - (start + want):
            found = self._select(TOPIC_LIST_ORDER, "", [], want + more, start)
        else:  # nearer the end of a counted list: read backwards from it
            skip = self.size - start - want
            found = self._select(_REVERSED, "", [], want, skip)[::-1]
        if len(found) != expected and self.recount():
            if start < self.size:
                self._read(page)  # again, where the count puts it
            return
        if more and start + want == self.size and len(found) == want:
            self.checked = True  # the last page and nothing after it: the size is right
        found = found[:want]
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
        # the rows before it as three ranges of the key, each counted from the index up to
        # the entry: one condition joined by OR read every row of the topic (11,627 rows,
        # 2-6 ms before the first frame at 100,000 entries)
        ranges = (
            ("undated < ?", (undated,)),
            ("undated = ? AND date > ?", (undated, date)),
            ("undated = ? AND date = ? AND entry_rowid < ?", (undated, date, rowid)),
        )
        counts = " + ".join(
            f"(SELECT count(*) FROM {self.table} l WHERE topic_id = ? AND {keys} {self.where})"
            for keys, _ in ranges
        )
        params = [p for _, values in ranges for p in (self.topic_id, *values, *self.params)]
        (before,) = self.db.query(f"SELECT {counts}", params)[0]
        return int(before)


class TopicRows(Sequence[EntryRow]):
    """A topic's rows (its own, then its also rows), read a page at a time on demand."""

    def __init__(self, db: Database, topic_id: int) -> None:
        self.db = db
        self.topic_id = topic_id
        sizes = db.query("SELECT size, also_size FROM topics WHERE id = ?", (topic_id,))
        own, also = sizes[0] if sizes else (None, None)
        self._own = _Segment(db, topic_id, "topic_list", own)
        self._also = _Segment(db, topic_id, "topic_also_list", also)
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
        while True:  # (at most three times: each segment's size is found wrong once)
            if not 0 <= index < len(self):
                raise IndexError(index)
            if self._all is not None:
                return self._all[index]
            own = self._own.size
            if index >= own and not self._own.checked:
                self._own.prove()  # the also rows' places follow the own rows' count
                continue
            row = self._own.row(index) if index < own else self._also.row(index - own)
            if row is not None:
                return row

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
            own = topic_rows(self.db, self.topic_id)
            also = topic_rows(self.db, self.topic_id, also=True)
            for segment, part in ((self._own, own), (self._also, also)):
                segment.size, segment.checked = len(part), True  # counted, in effect
            self._all = own + also
        return self._all

    def index_of(self, entry_id: str) -> int | None:
        """Where ``entry_id`` is in the rows, found by the store (no page read)."""
        if self._all is not None:
            return next((i for i, r in enumerate(self._all) if r[0] == entry_id), None)
        found = self._own.index_of(entry_id)
        if found is not None:
            if found >= self._own.size:
                self._own.recount()  # a place past the stated size: the size was wrong
            return found
        found = self._also.index_of(entry_id)
        if found is None:
            return None
        if found >= self._also.size:
            self._also.recount()
        self._own.prove()
        return self._own.size + found


def index_of(rows: Sequence[EntryRow], entry_id: str) -> int | None:
    """Where the row of ``entry_id`` is in ``rows`` (a list, or a :class:`TopicRows`)."""
    if isinstance(rows, TopicRows):
        return rows.index_of(entry_id)
    return next((i for i, r in enumerate(rows) if r[0] == entry_id), None)
