"""The entry list's views (a topic, the bookmarks, a search): their rows from the store,
their titles, and the rows of visited topics kept in memory."""

import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import NamedTuple

from topiclens.store import Store, Topic
from topiclens.store.pages import PAGE_ROWS, TopicRows

from .model import Row, Rows, View

# rows of visited topics kept in memory, least recently shown dropped first: 150,000
# rows take about 40 MB, and going back to a topic then costs no query (docs/reader.md,
# "Speed"); a topic read a page at a time counts the pages it has read
ROWS_CACHED = 150_000
# the river's rows read at a time (newest first, along the date index: milliseconds on a
# 100,000-entry store, where the whole river takes a second); the next page is read when
# the cursor or the next-unread walk nears the end of those shown
RIVER_PAGE = 500


def fetch_rows(store: Store, view: View) -> Rows:
    """The rows of a view, straight from the store: a topic's own entries, then those also
    listed under it, read a page at a time as they are shown (its first page now)."""
    if view.kind == "topic" and view.topic_id is not None:
        rows = TopicRows(store, view.topic_id)
        if rows:
            rows[0]  # the first screen's page, read here (a worker) rather than when drawn
        return Rows(rows, rows.also)
    if view.kind == "bookmarks":
        return Rows(store.entry_rows([b.entry_id for b in reversed(store.bookmarks())]))
    if view.kind == "river":
        return Rows(store.river_rows(RIVER_PAGE))
    if view.kind == "saved":
        saved = next((s for s in store.saved_searches() if s.name == view.query), None)
        return searched_rows(store, saved.query, muted_out=True) if saved else Rows([])
    return searched_rows(store, view.query)


def searched_rows(store: Store, query: str, *, muted_out: bool = False) -> Rows:
    """A search's rows: its literal matches, then (counted as ``also``) the entries that
    hold it only as a concept; ``muted_out``: without the muted entries (a saved search's
    list; the search of ``/`` is how a muted entry is found)."""
    from topiclens.clustering.search import search_split  # not imported before a search

    literal, concept = search_split(store, query)
    hidden = store.muted_ids() if muted_out else None
    if hidden:
        literal = [e for e in literal if e not in hidden]
        concept = [e for e in concept if e not in hidden]
    return Rows(store.entry_rows(literal + concept), len(concept))


def more_river(store: Store, shown: Rows) -> Rows | None:
    """The river's rows shown and its next page; None when every unread entry is there."""
    if len(shown.rows) % RIVER_PAGE or not shown.rows:
        return None  # a short page was the last
    more = store.river_rows(RIVER_PAGE, after=shown.rows[-1][0])
    return Rows(shown.rows + more) if more else None


def search_highlight(view: View, query: str | None = None) -> re.Pattern[str] | None:
    """What the panes mark in a search view (``query``: a saved search's query): the
    words and concept forms of its query."""
    if view.kind == "search":
        query = view.query
    elif view.kind != "saved" or not query:
        return None
    from topiclens.clustering.search import parse_query

    return parse_query(query).highlight


def first_topic(topics: list[Topic]) -> Topic | None:
    """The topic the reader opens on: the first coherent one (the store lists them first),
    never a mixed one unless every topic is mixed."""
    return next((t for t in topics if not t.mixed), topics[0] if topics else None)


def _held(rows: Rows) -> int:
    """The rows ``rows`` holds in memory (a paged topic: a few pages' worth, as counted
    when it is kept)."""
    if isinstance(rows.rows, TopicRows):
        return min(len(rows.rows), (rows.rows.pages_read + 2) * PAGE_ROWS)
    return len(rows.rows)


class RowCache:
    """Rows of visited topics, up to a budget of rows, least recently shown dropped first.
    Bookmarks and searches are never kept: they change with every bookmark and query."""

    def __init__(self, budget: int | None = None) -> None:
        self.budget = ROWS_CACHED if budget is None else budget
        self._rows: OrderedDict[View, tuple[Rows, int]] = OrderedDict()  # with their weight
        self._count = 0

    def __contains__(self, view: View) -> bool:
        return view in self._rows

    def get(self, view: View) -> Rows | None:
        kept = self._rows.get(view)
        if kept is None:
            return None
        self._rows.move_to_end(view)
        return kept[0]

    def put(self, view: View, rows: Rows) -> Rows:
        if view.kind == "topic":
            old = self._rows.pop(view, None)
            weight = _held(rows)
            self._count += weight - (old[1] if old is not None else 0)
            self._rows[view] = (rows, weight)
            while self._count > self.budget and len(self._rows) > 1:
                self._count -= self._rows.popitem(last=False)[1][1]
        return rows

    def clear(self) -> None:
        self._rows.clear()
        self._count = 0

    @property
    def row_count(self) -> int:
        return self._count


def view_title(
    view: View, n: int, topics: list[Topic], also: int = 0, total: int | None = None
) -> str:
    """The entry list's border title: what it shows and how many (``n`` rows, the last
    ``also`` of them listed here besides their own topic, or a search's concept matches;
    ``total``: the river's unread entries, of which ``n`` are read in so far)."""
    if view.kind == "bookmarks":
        return f"Bookmarks · {n}"
    if view.kind == "river":
        return f"All unread, newest first · {n if total is None else max(n, total)}"
    if view.kind in ("search", "saved"):
        what = "Search" if view.kind == "search" else "Saved search"
        title = f"{what} “{view.query}” · {n - also}"
        return f"{title} + {also} by concept" if also else title
    topic = next((t for t in topics if t.id == view.topic_id), None)
    title = f"{topic.name if topic else 'Topic'} · {n - also}"
    return f"{title} + {also} also here" if also else title


def view_name(view: View, topics: list[Topic]) -> str:
    """A view as a toast names it: the topic's name, the bookmarks, a search's results."""
    if view.kind == "topic":
        return next((t.name for t in topics if t.id == view.topic_id), "this topic")
    if view.kind == "bookmarks":
        return "the bookmarks"
    if view.kind == "river":
        return "the unread entries listed"
    if view.kind == "saved":
        return f"the saved search “{view.query}”"
    return f"the results of /{view.query}"


def topic_subject(topic: Topic) -> str:
    """A topic as a dialog names it: its name and its id (what the command line takes)."""
    return f"{topic.name} #{topic.id}"


def empty_text(view: View, unread_only: bool, filtered: bool = False) -> str:
    """What the entry list says when the view has no entries (``filtered``: a filter of
    the ``f`` dialog hides some)."""
    if filtered:
        return "No entry here passes the filter: f changes it."
    if view.kind == "topic":
        return "No unread entries in this topic." if unread_only else "Empty topic."
    if view.kind == "bookmarks":
        return "No bookmarks: press b on an entry."
    if view.kind == "river":
        return "No unread entries: every entry is read."
    return "Nothing matches."


# --- sort and filter (the `s` and `f` keys) -------------------------------------------

SORTS: dict[str, str] = {
    "date": "Date, newest first (bookmarks by when marked, a search best match first)",
    "source": "Source, then newest first",
    "title": "Title, A to Z",
}
DEFAULT_SORT = "date"
# compiled by re (and kept in its cache) when a date filter is first typed, not at start
DATE_FORMAT = r"\d{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?"


class RowFilter(NamedTuple):
    """Which rows the entry list keeps besides unread-only (the screen's own state, which
    ``u`` toggles too): one source, a date range (``since``/``until`` as 'YYYY-MM' or
    'YYYY-MM-DD', both ends included) and bookmarked only. The empty filter keeps all."""

    source: str | None = None
    since: str = ""
    until: str = ""
    bookmarked: bool = False

    @property
    def active(self) -> bool:
        return self != RowFilter()

    def keeps(self, row: Row, bookmarks: frozenset[str]) -> bool:
        _id, _title, source, date = row
        if self.source is not None and source != self.source:
            return False
        if self.since and (date is None or date[: len(self.since)] < self.since):
            return False
        if self.until and (date is None or date[: len(self.until)] > self.until):
            return False
        return not self.bookmarked or _id in bookmarks

    def describe(self) -> list[str]:
        """The filter's parts as the entry list's subtitle names them."""
        parts = []
        if self.source is not None:
            parts.append(f"source {self.source or '(none)'}")
        if self.since and self.until:
            parts.append(f"{self.since} to {self.until}")
        elif self.since:
            parts.append(f"since {self.since}")
        elif self.until:
            parts.append(f"until {self.until}")
        if self.bookmarked:
            parts.append("bookmarked")
        return parts


def date_problem(text: str) -> str | None:
    """Why ``text`` is not a date the filter takes (None: it is, or it is empty)."""
    if not text or re.fullmatch(DATE_FORMAT, text):
        return None
    return f"“{text}” is not a date: write YYYY-MM or YYYY-MM-DD"


def _date(row: Row) -> str:
    return row[3] or ""  # undated rows sort last, newest first


def sort_rows(rows: list[Row], sort: str) -> list[Row]:
    """``rows`` in the order of ``sort``. By date they stay in the store's order: a topic's
    newest first, bookmarks newest bookmark first, search results best match first. By
    source, newest first within a source: two stable sorts on one plain key each, several
    times faster than one sort on a tuple key."""
    if sort == "source":
        newest = sorted(rows, key=_date, reverse=True)
        return sorted(newest, key=lambda r: r[2].casefold())
    if sort == "title":
        return sorted(rows, key=lambda r: r[1].casefold())
    return rows


def arrange_rows(
    rows: Sequence[Row],
    also: int,
    *,
    sort: str,
    keep_row: Callable[[Row], bool] | None,
) -> Rows:
    """A view's rows sorted (own rows and "also here" rows each in their own group) and
    filtered by ``keep_row`` (None keeps every row)."""
    if isinstance(rows, TopicRows):
        rows.whole()  # read whole: its stored sizes are then counts
        also = rows.also
    own, others = rows[: len(rows) - also], rows[len(rows) - also :]
    if keep_row is not None:
        own = [r for r in own if keep_row(r)]
        others = [r for r in others if keep_row(r)]
    own, others = sort_rows(own, sort), sort_rows(others, sort)
    return Rows(own + others if others else own, len(others))
