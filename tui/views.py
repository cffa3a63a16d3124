"""The entry list's views (a topic, the bookmarks, a search): their rows from the store,
their titles, and the rows of visited topics kept in memory."""

from __future__ import annotations

import re
from collections import OrderedDict

from topiclens.store import Store, Topic

from .model import Rows, View

# rows of visited topics kept in memory, least recently shown dropped first: 150,000
# rows (every topic of a 100,000-entry store) take about 40 MB, and going back to a
# topic then costs no query (docs/reader.md, "Speed")
ROWS_CACHED = 150_000


def fetch_rows(store: Store, view: View) -> Rows:
    """The rows of a view, straight from the store: a topic's own entries, then those also
    listed under it."""
    if view.kind == "topic" and view.topic_id is not None:
        also = store.topic_also_rows(view.topic_id)
        return Rows(store.topic_rows(view.topic_id) + also, len(also))
    if view.kind == "bookmarks":
        return Rows(store.entry_rows([b.entry_id for b in reversed(store.bookmarks())]))
    from topiclens.clustering.search import search  # not imported before the first search

    return Rows(store.entry_rows(search(store, view.query)))


def search_highlight(view: View) -> re.Pattern[str] | None:
    """What the panes mark in a search view: the words and concept forms of its query."""
    if view.kind != "search":
        return None
    from topiclens.clustering.search import parse_query

    return parse_query(view.query).highlight


def first_topic(topics: list[Topic]) -> Topic | None:
    """The topic the reader opens on: the first coherent one (the store lists them first),
    never a mixed one unless every topic is mixed."""
    return next((t for t in topics if not t.mixed), topics[0] if topics else None)


class RowCache:
    """Rows of visited topics, up to a budget of rows, least recently shown dropped first.
    Bookmarks and searches are never kept: they change with every bookmark and query."""

    def __init__(self, budget: int | None = None) -> None:
        self.budget = ROWS_CACHED if budget is None else budget
        self._rows: OrderedDict[View, Rows] = OrderedDict()
        self._count = 0

    def __contains__(self, view: View) -> bool:
        return view in self._rows

    def get(self, view: View) -> Rows | None:
        rows = self._rows.get(view)
        if rows is not None:
            self._rows.move_to_end(view)
        return rows

    def put(self, view: View, rows: Rows) -> Rows:
        if view.kind == "topic":
            old = self._rows.pop(view, None)
            self._count += len(rows.rows) - (len(old.rows) if old is not None else 0)
            self._rows[view] = rows
            while self._count > self.budget and len(self._rows) > 1:
                self._count -= len(self._rows.popitem(last=False)[1].rows)
        return rows

    def clear(self) -> None:
        self._rows.clear()
        self._count = 0

    @property
    def row_count(self) -> int:
        return self._count


def view_title(view: View, n: int, topics: list[Topic], also: int = 0) -> str:
    """The entry list's border title: what it shows and how many (``n`` rows, the last
    ``also`` of them listed here besides their own topic)."""
    if view.kind == "bookmarks":
        return f"Bookmarks · {n}"
    if view.kind == "search":
        return f"Search “{view.query}” · {n}"
    topic = next((t for t in topics if t.id == view.topic_id), None)
    title = f"{topic.name if topic else 'Topic'} · {n - also}"
    return f"{title} + {also} also here" if also else title


def empty_text(view: View, unread_only: bool) -> str:
    """What the entry list says when the view has no entries."""
    if view.kind == "topic":
        return "No unread entries in this topic." if unread_only else "Empty topic."
    if view.kind == "bookmarks":
        return "No bookmarks: press b on an entry."
    return "Nothing matches."
