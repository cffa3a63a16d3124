"""Sort and filter the entry list (``s``, ``f``), drop read entries in unread-only mode
as the cursor leaves them, remember the reader's place between starts, and say how many
entries another process added."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from textual.worker import Worker

from .first_start import GROUP as FIRST_START
from .model import Row, Rows, View
from .views import DEFAULT_SORT, SORTS, RowFilter, arrange_rows, date_problem

if TYPE_CHECKING:
    from topiclens.store import Store

    from .widgets import EntryList

# store meta key: the view, entry, unread-only, sort and filter of the last session
STATE_KEY = "reader.state"
# after a toast about another process's change, its further commits (an import places
# its new entries in topics a second later) reload without a toast of their own
QUIET_AFTER_TOAST = 30.0


class SortFilterActions:
    """The main screen's sort, filter and memory: a mixin of :class:`MainScreen`, which
    calls :meth:`restore_state` before its first rows, :meth:`arranged_rows` on each delivery
    of rows and :meth:`store_changed_toast` when another process committed."""

    if TYPE_CHECKING:  # what the main screen provides
        store: Store
        view: View | None
        unread_only: bool
        read: frozenset[str]
        bookmarks: frozenset[str]
        entry_list: EntryList

        def show_view(self, view: View, keep: str | None = None, *, wait: bool = False) -> None:
            """Show a view (MainScreen)."""

        def _rows_ready(self, view: View, found: Rows, keep: str | None) -> None:
            """Rows arrived (MainScreen)."""

        def notify(self, message: str, **kwargs: Any) -> None:
            """A toast (Textual)."""

        def call_after_refresh(self, callback: Any) -> bool:
            """After the next frame (Textual)."""

        @property
        def app(self) -> Any:
            """The app (Textual)."""

    sort: str = DEFAULT_SORT
    row_filter: RowFilter = RowFilter()
    _restore_entry: str | None = None
    _shown: tuple[View, Rows] | None = None  # the last rows delivered, before arranging
    _left: str | None = None  # the entry the cursor was on before the current one
    _known_entries: int | None = None
    _toast_at: float = -QUIET_AFTER_TOAST

    # --- the rows ----------------------------------------------------------------------

    def arranged_rows(self, view: View, found: Rows, keep: str | None) -> tuple[Rows, str | None]:
        """``found`` sorted and filtered for the entry list, and the entry to keep the
        cursor on (at the first rows after a start: the entry remembered)."""
        self._shown = (view, found)
        if keep is None and self._restore_entry is not None:
            keep, self._restore_entry = self._restore_entry, None
        unread_only, rule, read = self.unread_only, self.row_filter, self.read
        keep_row = None
        if unread_only or rule.active:
            bookmarks = self.bookmarks

            def keep_row(row: Row) -> bool:
                # the entry under the cursor stays until the cursor leaves it
                if unread_only and row[0] in read and row[0] != keep:
                    return False
                return rule.keeps(row, bookmarks)

        if keep_row is None and self.sort == DEFAULT_SORT:
            return found, keep  # the common case costs nothing
        return arrange_rows(found.rows, found.also, sort=self.sort, keep_row=keep_row), keep

    def rearrange(self) -> None:
        """Show the current view again under the current sort and filter, the cursor kept
        on its entry (from the rows already read: no query)."""
        if self._shown is not None and self._shown[0] == self.view:
            self._rows_ready(self._shown[0], self._shown[1], self.entry_list.current_id)
        elif self.view is not None:
            self.show_view(self.view, keep=self.entry_list.current_id, wait=True)

    def list_subtitle(self) -> str:
        """The entry list's border subtitle: unread-only, the sort and the filter."""
        parts = ["unread only (u shows all)"] if self.unread_only else []
        if self.sort != DEFAULT_SORT:
            parts.append(f"by {self.sort}")
        parts += self.row_filter.describe()
        return " · ".join(parts)

    def on_entry_list_highlighted(self, event: Any) -> None:
        """In unread-only mode, a read entry leaves the list once the cursor leaves it."""
        left, self._left = self._left, event.entry_id
        current = self.entry_list.current_id
        if (
            self.unread_only
            and left is not None
            and left != current
            and event.entry_id == current
            and left in self.read
            and any(r[0] == left for r in self.entry_list.rows)
        ):
            self.rearrange()

    # --- the u, s and f keys ----------------------------------------------------------

    def action_unread_only(self) -> None:
        """Unread entries only, or all again (the filter dialog's "unread only" too)."""
        self.unread_only = not self.unread_only
        self.rearrange()
        self.save_state()
        self.notify("Unread entries only." if self.unread_only else "All entries.", timeout=2)

    def action_sort(self) -> None:
        from .screens.sort import SortScreen

        def chosen(sort: str | None) -> None:
            if sort is None or sort == self.sort:
                return
            self.sort = sort
            self.rearrange()
            self.save_state()
            self.notify(f"Sorted by {SORTS[sort].split(',')[0].lower()}.", timeout=2)

        self.app.push_screen(SortScreen(self.sort), chosen)

    def action_filter(self) -> None:
        from .screens.filter import FilterScreen

        rows = self._shown[1].rows if self._shown is not None else self.entry_list.rows
        counts: dict[str, int] = {}
        for row in rows:
            counts[row[2]] = counts.get(row[2], 0) + 1
        sources = sorted(counts.items(), key=lambda s: (-s[1], s[0].casefold()))

        def chosen(result: tuple[RowFilter, bool] | None) -> None:
            if result is None:
                return
            rule, unread_only = result
            if rule == self.row_filter and unread_only == self.unread_only:
                return
            self.row_filter, self.unread_only = rule, unread_only
            self.rearrange()
            self.save_state()
            active = rule.active or unread_only
            self.notify("Filter set." if active else "Filter cleared.", timeout=2)

        screen = FilterScreen(sources, self.row_filter, unread_only=self.unread_only)
        self.app.push_screen(screen, chosen)

    # --- remembered between starts -----------------------------------------------------

    def restore_state(self) -> None:
        """The last session's view, entry, unread-only, sort and filter (one meta row, read
        before the first rows, so the first frame is already the remembered one)."""
        self.call_after_refresh(self._count_entries)  # after the first frame: a count
        try:
            state = json.loads(self.store.get_meta(STATE_KEY) or "{}")
        except ValueError:
            return  # a state this version cannot read: start as new
        if not isinstance(state, dict):
            return
        view = state.get("view")
        if isinstance(view, int) and not isinstance(view, bool):
            self.view = View("topic", view)
        elif view == "bookmarks":
            self.view = View("bookmarks")
        entry = state.get("entry")
        self._restore_entry = entry if isinstance(entry, str) else None
        self.unread_only = state.get("unread_only") is True
        sort = state.get("sort")
        self.sort = sort if isinstance(sort, str) and sort in SORTS else DEFAULT_SORT
        self.row_filter = filter_from_json(state.get("filter"))

    def save_state(self) -> None:
        """Write the reader's place to the store (on leaving, and when sort or filter change)."""
        view = self.view
        if view is not None and view.kind == "topic":
            shown: int | str | None = view.topic_id
        else:
            shown = "bookmarks" if view is not None and view.kind == "bookmarks" else None
        rule = self.row_filter
        state = {
            "view": shown,
            "entry": self.entry_list.current_id if shown is not None else None,
            "unread_only": self.unread_only,
            "sort": self.sort,
            "filter": {
                "source": rule.source,
                "since": rule.since,
                "until": rule.until,
                "bookmarked": rule.bookmarked,
            },
        }
        self.store.set_meta(STATE_KEY, json.dumps(state, ensure_ascii=False))

    def on_unmount(self) -> None:
        try:
            self.save_state()
        except Exception as exc:  # a store closed or locked: the next start begins anew
            self.app.log.warning(f"reader state not saved: {exc}")

    # --- another process's changes -----------------------------------------------------

    def _count_entries(self) -> None:
        if self._known_entries is None:
            self._known_entries = self.store.count_entries()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Entries this reader imported itself (a first start) are not "new from another
        process": the count starts again once its grouping worker ends."""
        if event.worker.group == FIRST_START and event.worker.is_finished:
            self._known_entries = self.store.count_entries()

    def store_changed_toast(self) -> None:
        """One toast for another process's change, saying how many entries are new; its
        further commits within QUIET_AFTER_TOAST seconds reload without a toast."""
        count = self.store.count_entries()
        new = count - self._known_entries if self._known_entries is not None else 0
        self._known_entries = count
        now = time.monotonic()
        if new > 0:
            noun = "entry" if new == 1 else "entries"
            self.notify(f"{new} new {noun} from another process: topics and entries reloaded.")
        elif now - self._toast_at >= QUIET_AFTER_TOAST:
            self.notify("The store changed elsewhere: topics and entries reloaded.")
        else:
            return
        self._toast_at = now


def filter_from_json(value: object) -> RowFilter:
    """The filter saved by :meth:`SortFilterActions.save_state` (an empty one for anything
    else: a state written by another version is never an error)."""
    if not isinstance(value, dict):
        return RowFilter()
    source = value.get("source")
    since, until = value.get("since"), value.get("until")
    dates = [d if isinstance(d, str) and date_problem(d) is None else "" for d in (since, until)]
    return RowFilter(
        source=source if isinstance(source, str) else None,
        since=dates[0],
        until=dates[1],
        bookmarked=value.get("bookmarked") is True,
    )
