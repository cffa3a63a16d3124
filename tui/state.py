"""The reader's place: what the main screen shows and how, in one object saved as one.

The main screen owns one :class:`ReaderState`. It is read from the store's meta row
``reader.state`` before the first rows are shown (so the first frame is already the
remembered one) and written back a moment after every move, scroll or change of sort or
filter, and on leaving.

The stored form is a small JSON object; anything this version cannot read in it (not
JSON, nested too deep, too large, a field of the wrong type) falls back to the defaults
for that part, with one sentence saying so: a stored state is never an error."""

from __future__ import annotations

import json
from typing import Any

from topiclens.store.models import Record

from .model import View
from .views import DEFAULT_SORT, SORTS, RowFilter, date_problem

STATE_KEY = "reader.state"  # the store's meta key
# a real state is a few hundred characters: a larger one is not read (it would cost a frame)
MAX_STATE_LENGTH = 64 * 1024


class ReaderState(Record):
    """Where the reader is and how its entry list is arranged."""

    __slots__ = (
        "entry",
        "entry_top",
        "list_top",
        "row_filter",
        "search_query",
        "sort",
        "unread_only",
        "view",
    )

    def __init__(
        self,
        view: View | None = None,
        entry: str | None = None,
        unread_only: bool = False,
        sort: str = DEFAULT_SORT,
        row_filter: RowFilter | None = None,
        search_query: str | None = None,
        list_top: int = 0,
        entry_top: int = 0,
    ) -> None:
        self.view = view  # the topic, bookmarks, search, river or saved search shown
        # the entry under the entry list's cursor (the list's Highlighted handler follows it)
        self.entry = entry
        self.unread_only = unread_only
        self.sort = sort
        self.row_filter = RowFilter() if row_filter is None else row_filter
        # this session's search, listed above the topics; not saved: a search reads every
        # entry, so a start on one would show "Searching…" where the first entry should be
        self.search_query = search_query
        self.list_top = list_top  # the entry list's first line on screen
        self.entry_top = entry_top  # the entry pane's first line on screen (how far it was read)

    def to_json(self) -> str:
        """The saved form: a topic, the bookmarks, All unread or a saved search (by name;
        a search is not saved), the entry in it and how the two panes were scrolled,
        unread-only, the sort and the filter."""
        view = self.view
        shown: int | str | dict[str, str] | None = None
        if view is not None and view.kind == "topic":
            shown = view.topic_id
        elif view is not None and view.kind in ("bookmarks", "river"):
            shown = view.kind
        elif view is not None and view.kind == "saved":
            shown = {"saved": view.query}
        rule = self.row_filter
        state = {
            "view": shown,
            "entry": self.entry if shown is not None else None,
            "list_top": self.list_top if shown is not None else 0,
            "entry_top": self.entry_top if shown is not None else 0,
            "unread_only": self.unread_only,
            "sort": self.sort,
            "filter": {
                "source": rule.source,
                "since": rule.since,
                "until": rule.until,
                "bookmarked": rule.bookmarked,
            },
        }
        return json.dumps(state, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | None) -> tuple[ReaderState, str | None]:
        """The state saved as ``text`` (None or empty: the defaults), and a sentence
        naming what could not be read (None when everything could)."""
        if not text:
            return cls(), None
        if len(text) > MAX_STATE_LENGTH:
            return cls(), unreadable("it is too large")
        try:
            data = json.loads(text)
        except RecursionError:
            return cls(), unreadable("it is nested too deep")
        except ValueError:
            return cls(), unreadable("it is not JSON")
        if not isinstance(data, dict):
            return cls(), unreadable("it is not a JSON object")
        state, bad = cls(), []
        view = data.get("view")
        if isinstance(view, int) and not isinstance(view, bool):
            state.view = View("topic", view)
        elif view in ("bookmarks", "river"):
            state.view = View(view)
        elif isinstance(view, dict) and isinstance(view.get("saved"), str):
            state.view = View("saved", query=view["saved"])  # (reload checks it is there)
        elif view is not None:
            bad.append("view")
        entry = data.get("entry")
        if isinstance(entry, str):
            state.entry = entry
        elif entry is not None:
            bad.append("entry")
        for name in ("list_top", "entry_top"):
            top = data.get(name, 0)
            if isinstance(top, int) and not isinstance(top, bool) and 0 <= top < 2**31:
                setattr(state, name, top)
            else:
                bad.append(name)
        unread_only = data.get("unread_only", False)
        if isinstance(unread_only, bool):
            state.unread_only = unread_only
        else:
            bad.append("unread_only")
        sort = data.get("sort", DEFAULT_SORT)
        if isinstance(sort, str) and sort in SORTS:
            state.sort = sort
        else:
            bad.append("sort")
        row_filter = filter_from_json(data.get("filter"))
        if row_filter is None:
            bad.append("filter")
        else:
            state.row_filter = row_filter
        if bad:
            names = ", ".join(bad)
            return (
                state,
                f"Part of the reader's saved place could not be read ({names}): defaults used.",
            )
        return state, None


def unreadable(why: str) -> str:
    return f"The reader's saved place could not be read ({why}): it starts afresh."


def filter_from_json(value: Any) -> RowFilter | None:
    """The filter saved by :meth:`ReaderState.to_json` (an absent one: the empty filter),
    None when it is not one."""
    if value is None:
        return RowFilter()
    if not isinstance(value, dict):
        return None
    source = value.get("source")
    since, until = value.get("since", ""), value.get("until", "")
    bookmarked = value.get("bookmarked", False)
    if source is not None and not isinstance(source, str):
        return None
    for date in (since, until):
        if not isinstance(date, str) or date_problem(date) is not None:
            return None
    if not isinstance(bookmarked, bool):
        return None
    return RowFilter(source=source, since=since, until=until, bookmarked=bookmarked)
