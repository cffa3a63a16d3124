"""The reader's main screen: topics on the left; on the right the entries of the chosen
view, the entry under the cursor and the entries similar to it.

One class does everything the screen does, as posting's and oldnews's main screens do:
every event has one handler here, every command one ``action_`` method, and the reader's
place is one :class:`~topiclens.tui.state.ReaderState` (``self.state``), restored on mount
and saved as it changes and on unmount. Actions live on the screen rather than in
controller objects because a dialog flow is a Textual worker (``@work``), which runs on a
DOM node, and every action
reads and writes the same panes and state: a controller would need the whole screen. What
needs no screen lives beside it, with no event handlers: a view's rows (``views.py``,
``row_loader.py``), the entry shown (``details.py``), the saved place (``state.py``),
links and browsers (``links.py``), the first start's work (``first_start.py``).

How to add
- a command: declare it once in ``commands.py`` (key, label, help; the binding, footer,
  help screen and palette come from it), then write its ``action_`` method here, in the
  section it belongs to;
- a dialog or another screen: one file under ``screens/``, and an action that reads top to
  bottom: ``@work(group=DIALOG) async def action_x(self)``, ``answer = await
  self.app.push_screen_wait(XScreen(...))``, then what the answer changes;
- slow work: a group in ``workers.py`` and a ``@work(thread=True, group=...,
  exit_on_error=False)`` method that returns its result; it reports progress with
  ``self.app.call_from_thread(self.show_progress, stage, fraction)``, and its end (result
  or error) is handled in :meth:`worker_changed`, the one handler of
  ``Worker.StateChanged``.
"""

from __future__ import annotations

import functools
import gc
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, Concatenate, ParamSpec, TypeVar

from textual import events, on, work
from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import BindingType
from textual.content import Content
from textual.reactive import var
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static
from textual.worker import Worker, WorkerState, get_current_worker
from topiclens.store import Store, StoreError, StoreReplaced, Topic

from .commands import MAIN, bindings
from .details import KeptDetails
from .display import cut_line, literal, terminal_line
from .model import Detail, Row, Rows, View
from .row_loader import RowLoader
from .state import STATE_KEY, ReaderState
from .store_read import StoreRead, read_store
from .textual_compat import crop_frames, first_resume_styled, laid_out_at, repaint_now
from .views import (
    DEFAULT_SORT,
    RIVER_PAGE,
    SORTS,
    arrange_rows,
    empty_text,
    first_topic,
    more_river,
    search_highlight,
    topic_subject,
    view_name,
    view_title,
)
from .widgets import DetailPane, EntryList, KeyFooter, SimilarList, TopicList, topic_items
from .workers import (
    BROWSER,
    CHECK,
    CORRECTION,
    DIALOG,
    FEEDS,
    PREPARE,
    READ_AHEAD,
    RELOAD,
    ROWS,
    SAVED,
)

if TYPE_CHECKING:
    import webbrowser

    from textual.timer import Timer
    from topiclens.clustering.corrections import Change
    from topiclens.feeds.refresh import RefreshProgress, RefreshSummary
    from topiclens.feeds.subscribe import Subscribed
    from topiclens.store.bookmarks import Marks


# The least usable size, measured: at 15 lines the panes' least heights (entries 6, entry
# 4, similar 5) and the footer overflow the screen; under 60 columns nothing breaks but
# titles shrink to stumps (20 cells at 50 columns). docs/reader.md, "Small terminals".
MIN_WIDTH = 60
MIN_HEIGHT = 16
SHORT = 30  # under this many lines the panes share less height (reader.tcss, -short)
# the topic pane's width follows its longest name, within these bounds (columns; a share
# of the screen's): the entries keep at least 60% of the screen
TOPICS_LEAST = 22
TOPICS_MOST = 40
TOPICS_SHARE = 0.4

# above a search's concept matches in the entry list
CONCEPT_DIVIDER = "by concept: a related term, not the words as written"

# after a toast about another process's change, its further commits (an import places
# its new entries in topics a second later) reload without a toast of their own
QUIET_AFTER_TOAST = 30.0

# how often the reader asks whether a feed is due (the schedule's interval is the store's:
# feeds/schedule.py); a question to the feeds table, in the refresh's worker
FEED_CHECK_SECONDS = 60.0

# the place is written this long after a move: one write for a burst of keys (a held j)
SAVE_PLACE_AFTER = 0.5

Correction = Callable[[Store], "Change | None"]

P = ParamSpec("P")
R = TypeVar("R")


def writes_to_store(
    action: Callable[Concatenate[MainScreen, P], R],
) -> Callable[Concatenate[MainScreen, P], R | None]:
    """A key's work that writes to the store: a store file replaced under the reader is
    opened anew and shown first (nothing written: the key is pressed again), and a store
    error (a full disk, a read-only or locked store) is a toast, never a dead reader."""

    @functools.wraps(action)
    def guarded(self: MainScreen, *args: P.args, **kwargs: P.kwargs) -> R | None:
        if self.check_store_file():
            return None
        try:
            return action(self, *args, **kwargs)
        except StoreError as exc:
            self.store_failed(exc)
            return None
        finally:
            self._store_epoch += 1  # a reload read before this write is stale
            self._details.clear()  # and so is every entry kept in full

    return guarded


class MainScreen(Screen[None]):
    """Topics on the left, the entries of the chosen topic and the chosen entry on the right."""

    BINDINGS: ClassVar[list[BindingType]] = bindings(MAIN)
    AUTO_FOCUS = "#topics"
    # the key footer (or slow work's progress in its place) stays under a maximised entry
    # (Textual keeps a "Footer" by default)
    ALLOW_IN_MAXIMIZED_VIEW: ClassVar[str] = "KeyFooter"

    # what the panes show, bound to them in on_mount
    bookmarks: var[frozenset[str]] = var(frozenset, always_update=True)
    read: var[frozenset[str]] = var(frozenset, always_update=True)
    detail: var[Detail | None] = var(None, always_update=True)
    # entries the feeds brought in this session, marked new in their lists until read
    new: var[frozenset[str]] = var(frozenset, always_update=True)

    def __init__(
        self,
        store: Store,
        *,
        cluster: bool = True,
        poll_interval: float = 2.0,
        feed_check: float = FEED_CHECK_SECONDS,
    ) -> None:
        super().__init__()
        crop_frames(self)  # a key's frame draws only the panes it changed (Textual's: all)
        self.store = store
        self.cluster = cluster  # group entries into topics when the store has none
        self.poll_interval = poll_interval
        self.feed_check = feed_check  # seconds between two looks for due feeds
        self.state = ReaderState()  # the reader's place, saved between starts
        # what the store holds, read again by reload()
        self.topics: list[Topic] = []
        self.unread: dict[int, int] = {}  # topic id -> its unread entries
        self.search_count = 0  # the results of the search in the topic list
        self.saved: dict[str, str] = {}  # saved search name -> its query, in the order saved
        # each saved search's entries (muted ones left out), read by a worker after reload
        self.saved_found: dict[str, frozenset[str]] = {}
        # this session's work
        self.loader = RowLoader(self, store, self.rows_ready)
        self.preparing = False  # the first start's grouping is under way
        self._saved_place: str | None = None  # the place as last written
        self._save_timer: Timer | None = None  # a write of the place is due
        # the scrolls read with the place, put back once the first frame is laid out
        self._scroll_to_restore: tuple[str | None, int, int] | None = None
        self._store_gone = False  # the store's file is moved or deleted (said once)
        self._shown: tuple[View, Rows] | None = None  # the last rows, before sort and filter
        self._left: str | None = None  # the entry the cursor was on before the current one
        self._version = 0  # the store's data version when last read
        # the entries counted when last read, for "N new entries from another process"
        self.known_entries: int | None = None
        self._toast_at = -QUIET_AFTER_TOAST
        self._feed_job: str | None = None  # "refresh", "schedule" or "subscribe", running
        # moves on every reload and every key's write: a store read started before is stale
        self._store_epoch = 0
        self._grouping: str | None = None  # the grouping the topic list's order was made for
        # where the view goes when the running correction ends (None: to its topic; else
        # it stays, and when its topic is gone goes to the "neighbour" in the list or the
        # topic the change "touched")
        self._stay: str | None = None
        # the neighbouring topics' rows are read once the first frame is drawn: the
        # worker's connection and queries would compete with drawing it
        self._first_frame_shown = False
        self._details = KeptDetails()  # the entries shown in full since the last change

    def compose(self) -> ComposeResult:
        # no containers: the topics dock on the left, the right-hand panes stack in the
        # screen's vertical layout (two fewer widgets to style, lay out and composite)
        topics = TopicList(id="topics")
        # styled as focused from the start: Textual focuses it (AUTO_FOCUS) once it is
        # styled, and the focus would style it again (~4M instructions before the frame)
        topics.set_reactive(Widget.has_focus, True)
        yield topics
        yield EntryList(id="entries")
        yield DetailPane(id="detail")
        yield SimilarList(id="similar")
        yield KeyFooter()

    @property
    def topic_list(self) -> TopicList:
        return self.query_one("#topics", TopicList)

    @property
    def entry_list(self) -> EntryList:
        return self.query_one("#entries", EntryList)

    @property
    def detail_pane(self) -> DetailPane:
        return self.query_one("#detail", DetailPane)

    @property
    def similar_list(self) -> SimilarList:
        return self.query_one("#similar", SimilarList)

    # --- events: one handler each ----------------------------------------------------

    def on_mount(self) -> None:
        if self.focused is not self.topic_list:  # not focused after all (the app's focus)
            self.topic_list.has_focus = False
        self.topic_list.border_title = "Topics"
        self.detail_pane.border_title = "Entry"
        self.entry_list.data_bind(MainScreen.bookmarks, MainScreen.read, MainScreen.new)
        self.detail_pane.data_bind(MainScreen.detail)
        self.similar_list.border_title = "Similar entries"
        self.similar_list.data_bind(MainScreen.detail)
        self.watch(self.entry_list, "scroll_y", self._list_scrolled, init=False)
        self.watch(self.detail_pane, "scroll_y", self._entry_scrolled, init=False)
        self._version = self.store.external_changes()
        self.restore_state()  # the last session's place, sort and filter
        # the first frame shows the remembered entry in full (rows_ready)
        self.reload(keep=self.state.entry)
        self.call_after_refresh(self._count_entries)  # a count: after the first frame
        if self.cluster and not self.topics:
            empty = not self.store.count_entries()
            self.show_progress("Importing the bundled corpus" if empty else "Grouping entries", 0)
            self.preparing = True
            self.call_after_refresh(self.start_preparing)  # the first frame comes first
        self.set_interval(self.poll_interval, self.poll_store)
        self.set_interval(self.feed_check, self.refresh_due_feeds)

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        # runs before Textual's own handler: the first resume restyles nothing
        first_resume_styled(self, event)

    def on_unmount(self) -> None:
        try:
            self.save_state()
        except Exception as exc:  # a store closed, locked or full: the last place written stays
            self.app.log.warning(f"reader state not saved: {exc}")
        self.loader.close()

    def on_resize(self, event: events.Resize) -> None:
        # the first layout sends the screen a Resize of the size it was laid out at, and
        # Textual's handler lays the whole screen out again and draws a frame, for nothing
        if laid_out_at(self, event.size):
            event.prevent_default()
        self.fit_topic_pane()
        width, height = self.size
        # a class set only when it changes, so a normal start restyles nothing
        self.set_class(height < SHORT, "-short")
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        if small:
            text = Content(
                f"The terminal is {width}x{height}.\n"
                f"topiclens needs at least {MIN_WIDTH}x{MIN_HEIGHT}:\n"
                "make it larger, or press q to quit."
            )
            found = self.query("#too-small")
            if found:
                found.first(Static).update(text)
            else:
                from .widgets.too_small import TooSmall

                self.mount(TooSmall(text, id="too-small"))
        self.set_class(small, "-too-small")

    def watch_maximized(self) -> None:
        # escape restores the panes too (Textual's own key), so the hint follows the state
        shown = self.maximized is self.detail_pane
        self.detail_pane.border_subtitle = "v or escape: every pane" if shown else ""

    @on(TopicList.Chosen)
    def topic_chosen(self, event: TopicList.Chosen) -> None:
        event.stop()  # the screen's alone: the app is not told
        if event.view != self.state.view:
            self.show_view(event.view)
        if event.opened:
            self.entry_list.focus()

    @on(EntryList.Highlighted)
    def entry_highlighted(self, event: EntryList.Highlighted) -> None:
        event.stop()  # the screen's alone: the app is not told
        entry_id = event.entry_id
        current = self.entry_list.current_id
        left, self._left = self._left, entry_id
        if entry_id != current:
            return  # sent before the rows or the cursor changed again: a newer one follows
        self.state.entry = entry_id
        self.place_changed()
        if entry_id is None or self.detail is None or self.detail.entry.id != entry_id:
            self.show_detail(entry_id)  # else shown already (rows_ready loads it)
            # the list's cursor and its entry in one frame, not two
            repaint_now(self.entry_list, self.detail_pane, self.similar_list)
        cursor = self.entry_list.cursor
        if cursor is not None and cursor >= len(self.entry_list.rows) - RIVER_PAGE // 5:
            self.more_river()  # near the end of the river's rows read so far: the next page
        # in unread-only mode a read entry leaves the list once the cursor leaves it
        if (
            self.state.unread_only
            and left is not None
            and left != current
            and left in self.read
            and any(r[0] == left for r in self.entry_list.rows)
        ):
            self.rearrange()

    @on(EntryList.Opened)
    def entry_opened(self, event: EntryList.Opened) -> None:
        if event.entry_id not in self.read:
            self.set_read(event.entry_id, True)
        self.detail_pane.focus()

    @on(SimilarList.Jump)
    def similar_chosen(self, event: SimilarList.Jump) -> None:
        self.jump_to_entry(event.entry_id)

    @on(Worker.StateChanged)
    def worker_changed(self, event: Worker.StateChanged) -> None:
        """The end of every worker the screen runs, told apart by its group."""
        worker = event.worker
        if not worker.is_finished:
            return
        if worker.group == PREPARE:
            self.prepared(worker)
        elif worker.group == CORRECTION:
            if worker.state == WorkerState.SUCCESS:
                self.corrected(worker.result)
            elif worker.state == WorkerState.ERROR:
                self.correction_failed(worker.error)
        elif worker.group == FEEDS:
            self.feeds_fetched(worker)
        elif worker.group == RELOAD and worker.state == WorkerState.SUCCESS:
            self.reloaded(*worker.result)  # type: ignore[misc]
        elif worker.group == SAVED and worker.state == WorkerState.SUCCESS:
            self.saved_found = worker.result  # type: ignore[assignment]
            self.show_topics(self.state.view)
        elif worker.group == CHECK and worker.state == WorkerState.SUCCESS:
            if worker.result:  # entries the last grouping has not placed: group them now
                self.show_progress("Grouping new entries", 0)
                self.start_preparing()
        elif worker.state == WorkerState.ERROR and worker.group != DIALOG:  # store readers
            view = self.state.view
            if worker.group == ROWS and view is not None and view.kind == "search":
                self.search_failed(f"The search could not run: {worker.error}")
                return
            message = terminal_line(f"Could not read the store: {worker.error}")
            self.notify(message, severity="error", markup=False)

    # --- the reader's place ----------------------------------------------------------

    def restore_state(self) -> None:
        """The last session's place, sort and filter (one meta row, read before the first
        rows, so the first frame is already the remembered one)."""
        self._saved_place = self.store.get_meta(STATE_KEY)
        self.state, problem = ReaderState.from_json(self._saved_place)
        state = self.state
        self._scroll_to_restore = (state.entry, state.list_top, state.entry_top)
        if problem is not None:
            self.notify(problem, severity="warning", timeout=10, markup=False)

    def save_state(self) -> None:
        """Write the reader's place to the store when it changed (a moment after a move, a
        scroll or a change of sort or filter, and on leaving). From the state alone: on
        unmount the panes are gone already."""
        if self._save_timer is not None:
            self._save_timer.stop()
            self._save_timer = None
        place = self.state.to_json()
        if place != self._saved_place:
            self.store.set_meta(STATE_KEY, place)
            self._saved_place = place

    def place_changed(self) -> None:
        """The place, the sort or the filter changed: write them SAVE_PLACE_AFTER seconds
        later (one write for a burst of moves), so a reader killed or a terminal closed
        keeps them too."""
        if self._save_timer is None:
            self._save_timer = self.set_timer(SAVE_PLACE_AFTER, self._save_place_later)

    def _save_place_later(self) -> None:
        self._save_timer = None
        try:
            self.save_state()
        except StoreReplaced as exc:
            self.store_replaced(exc, pressed=False)
        except StoreError as exc:  # a full disk: the keys say so; this waits for the next move
            self.app.log.warning(f"reader state not saved: {exc}")

    def _list_scrolled(self, top: float) -> None:
        self.state.list_top = round(top)
        self.place_changed()

    def _entry_scrolled(self, top: float) -> None:
        self.state.entry_top = round(top)
        self.place_changed()

    def restore_scroll(self) -> None:
        """Scroll the entry list and the entry as they were when the place was saved
        (once the panes have their sizes), when the same entry is shown."""
        saved, self._scroll_to_restore = self._scroll_to_restore, None
        entries = self.entry_list
        if saved is None or saved[0] is None or entries.current_id != saved[0]:
            return
        _, list_top, entry_top = saved
        line = entries.line_of(entries.cursor or 0)
        if list_top <= line < list_top + entries.scrollable_content_region.height:
            entries.scroll_to(y=list_top, animate=False, immediate=True)
        self.detail_pane.scroll_to_line(entry_top)

    # --- showing a view ----------------------------------------------------------------

    def reload(self, keep: str | None = None, *, resort: bool = False) -> None:
        """Read topics, bookmarks and read state again and show the current view, the
        cursor on entry ``keep`` (by default the entry under it). The topics keep the
        order they are listed in, unless ``resort`` or the topics were grouped anew."""
        self._store_epoch += 1  # a reload still being read in a worker is older than this
        self.show_store(read_store(self.store), keep, resort=resort)

    def show_store(
        self, found: StoreRead, keep: str | None, *, resort: bool = False, wait: bool = True
    ) -> None:
        """Show what ``found`` read of the store (the body of :meth:`reload`); ``wait``
        False: rows not in ``found`` are read in a worker, never on the loop."""
        self.loader.forget()
        self._details.clear()
        if found.rows is not None:
            self.loader.cache.put(*found.rows)
        self.topics = self.ordered_topics(resort, found.topics, found.grouping)
        self.unread = found.unread
        self.bookmarks = found.bookmarks
        self.read = found.read
        self.saved = found.saved
        self.count_saved_searches()
        view = self.state.view
        valid = {t.id for t in self.topics}
        if view is not None and (
            (view.kind == "topic" and view.topic_id not in valid)
            or (view.kind == "bookmarks" and not self.bookmarks)
            or (view.kind == "saved" and view.query not in self.saved)
        ):
            view = None
        opening = first_topic(self.topics)
        if view is None and opening is not None:
            view = View("topic", opening.id)
        self.show_topics(view)
        if view is not None:
            # a search scans every entry: never on the event loop
            wait = wait and not view.searched
            self.show_view(view, keep=keep or self.entry_list.current_id, wait=wait)
        else:
            self.state.view = None
            self.entry_list.empty_text = (
                "Preparing topics…" if self.preparing else "No topics yet: import some entries."
            )
            self.entry_list.show_rows([])

    def ordered_topics(self, resort: bool, fresh: list[Topic], grouping: str | None) -> list[Topic]:
        """The store's topics (``fresh``, of ``grouping``) in the order the topic list
        shows them now (the store's own order, largest first, at the first read, on
        ``resort`` and after a new grouping): counts that change while reading never move
        a topic."""
        if resort or grouping != self._grouping or not self.topics:
            self._grouping = grouping
            return fresh
        from .places import keep_order

        return keep_order(fresh, [t.id for t in self.topics])

    def show_topics(self, current: View | None) -> None:
        search = None
        if self.state.search_query is not None:
            search = (self.state.search_query, self.search_count)
        read = self.read
        saved = [
            (name, None, 0)
            if name not in self.saved_found
            else (name, len(ids), sum(1 for e in ids if e not in read))
            for name, ids in ((n, self.saved_found.get(n)) for n in self.saved)
        ]
        items = topic_items(self.topics, self.unread, len(self.bookmarks), search, saved)
        self.topic_list.show(items, current)
        self.fit_topic_pane()

    def fit_topic_pane(self) -> None:
        """The topic pane as wide as its longest name needs, between TOPICS_LEAST columns
        and TOPICS_SHARE of the screen (at most TOPICS_MOST): at 80 columns, names that
        start alike ("Mixed: recsys…", "Mixed: training…") stay told apart."""
        pane = self.topic_list
        most = min(TOPICS_MOST, max(TOPICS_LEAST, int(self.app.size.width * TOPICS_SHARE)))
        pane.styles.width = max(TOPICS_LEAST, min(pane.wanted_width(), most))

    def show_view(self, view: View, keep: str | None = None, *, wait: bool = False) -> None:
        """Show ``view`` in the entry list: at once when ``wait`` or when its rows are
        kept, else from a worker."""
        self.state.view = view
        self.place_changed()
        self.loader.load(view, keep, wait=wait)

    def rows_ready(self, view: View, found: Rows, keep: str | None) -> None:
        """A view's rows arrived (from memory, the store or a worker): show them sorted
        and filtered, the cursor on ``keep``, and the entry under it."""
        if view != self.state.view:
            return
        if view.kind == "search" and self.search_count != len(found.rows):
            self.search_count = len(found.rows)
            self.show_topics(view)
        self._shown = (view, found)
        rows, also = self.arranged(found, keep)
        state = self.state
        entries = self.entry_list
        entries.empty_text = empty_text(view, state.unread_only, state.row_filter.active)
        total = sum(self.unread.values()) if view.kind == "river" else None
        entries.border_title = literal(view_title(view, len(rows), self.topics, also, total))
        entries.border_subtitle = literal(self.list_subtitle())
        entries.highlight = match = search_highlight(view, self.saved.get(view.query))
        self.detail_pane.show_matches(match)
        divider = CONCEPT_DIVIDER if view.searched else None
        entries.show_rows(rows, keep, also=also, divider=divider)
        # the entry under the cursor is loaded here, in the same turn of the event loop as
        # the rows, not on the list's Highlighted message: the rows and their first entry
        # then reach the terminal in one frame, not two
        current = entries.current_id
        if current is None:
            self.detail = None
        elif self.detail is None or self.detail.entry.id != current:
            self.show_detail(current)
        if self._first_frame_shown:  # else first_frame_shown reads ahead
            self.loader.read_ahead(view, [t.id for t in self.topics])
        # the list, its entry and the topic list's cursor in one frame, not two
        repaint_now(self.topic_list, entries, self.detail_pane, self.similar_list)

    def arranged(self, found: Rows, keep: str | None) -> Rows:
        """``found`` sorted and filtered for the entry list (the entry ``keep`` stays
        until the cursor leaves it, read or not)."""
        state, read = self.state, self.read
        unread_only, rule = state.unread_only, state.row_filter
        keep_row = None
        if unread_only or rule.active:
            bookmarks = self.bookmarks

            def keep_row(row: Row) -> bool:
                if unread_only and row[0] in read and row[0] != keep:
                    return False
                return rule.keeps(row, bookmarks)

        if keep_row is None and state.sort == DEFAULT_SORT:
            return found  # the common case costs nothing
        return arrange_rows(found.rows, found.also, sort=state.sort, keep_row=keep_row)

    def rearrange(self) -> None:
        """Show the current view again under the current sort and filter, the cursor kept
        on its entry (from the rows already read: no query)."""
        view = self.state.view
        if self._shown is not None and self._shown[0] == view:
            self.rows_ready(self._shown[0], self._shown[1], self.entry_list.current_id)
        elif view is not None:
            self.show_view(view, keep=self.entry_list.current_id, wait=True)

    def list_subtitle(self) -> str:
        """The entry list's border subtitle: unread-only, the sort and the filter."""
        state = self.state
        parts = ["unread only (u shows all)"] if state.unread_only else []
        if state.sort != DEFAULT_SORT:
            parts.append(f"by {state.sort}")
        parts += state.row_filter.describe()
        return " · ".join(parts)

    def load_detail(self, entry_id: str | None) -> None:
        """Show ``entry_id`` in full, read from the store now (after a change: every entry
        kept by :meth:`show_detail` is forgotten)."""
        self._details.clear()
        self.show_detail(entry_id)

    def show_detail(self, entry_id: str | None) -> None:
        """Show ``entry_id`` in full: as read for it since the store, the topics, the read
        state and the bookmarks last changed (a topic or an entry gone back to), else from
        the store."""
        self.detail = (
            None
            if entry_id is None
            else self._details.get(self.store, entry_id, self.topics, self.read, self.bookmarks)
        )

    def jump_to_entry(self, entry_id: str) -> None:
        """Put the cursor on ``entry_id``: in the list shown, else in its topic."""
        entries = self.entry_list
        index = next((i for i, r in enumerate(entries.rows) if r[0] == entry_id), None)
        if index is not None:
            entries.move_cursor(index)
        else:
            assignment = self.store.assignment(entry_id)
            if assignment is None:
                return
            view = View("topic", assignment[0])
            self.topic_list.select_view(view)
            self.show_view(view, keep=entry_id, wait=True)
        entries.focus()

    def jump_to_topic(self, topic_id: int) -> None:
        view = View("topic", topic_id)
        self.topic_list.select_view(view)
        if view != self.state.view:
            self.show_view(view, wait=True)
        self.entry_list.focus()

    def _catch_up(self) -> None:
        """Show the entry under the list's cursor if the detail is still behind it (keys
        typed faster than the list's Highlighted message), so a key acts on that row."""
        current = self.entry_list.current_id
        behind = self.detail is None or self.detail.entry.id != current
        if self.focused is self.entry_list and current is not None and behind:
            self.show_detail(current)

    def _current(self) -> str | None:
        similar = self.similar_list
        if self.focused is similar and similar.current_id is not None:
            return similar.current_id  # b, N, r act on the highlighted similar entry
        return self.detail.entry.id if self.detail is not None else None

    def _need_entry(self) -> str | None:
        entry_id = self._current()
        if entry_id is None:
            self.notify("No entry selected.", severity="warning")
        return entry_id

    # --- moving ------------------------------------------------------------------------

    def action_pane(self, step: int) -> None:
        panes: list[Widget] = [
            self.topic_list,
            self.entry_list,
            self.detail_pane,
            self.similar_list,
        ]
        focused = self.focused
        index = 0
        for i, pane in enumerate(panes):
            if focused is pane or (focused is not None and pane in focused.ancestors):
                index = i
        panes[max(0, min(len(panes) - 1, index + step))].focus()

    def action_step_entry(self, step: int) -> None:
        """``n``/``p``: move the entry cursor by ``step`` and mark the entry it lands on
        read; past the last entry of a topic, go on to the first entry of the next topic
        that has one."""
        entries = self.entry_list
        target = (entries.cursor if entries.cursor is not None else -1) + step
        if target >= len(entries.rows) and step > 0:
            self.more_river()
        if 0 <= target < len(entries.rows):
            entries.move_cursor(target)
        elif step < 0 or not self._next_topic():
            return
        entry_id = entries.current_id
        if entry_id is not None and entry_id not in self.read:
            self.set_read(entry_id, True)

    def _next_topic(self) -> bool:
        """Show the first entry of the topic after the current one (skipping those with
        no entry shown, as in unread-only mode), with a toast naming it; a toast saying so
        when this was the last. True when it moved."""
        view = self.state.view
        ids = [t.id for t in self.topics]
        if view is None or view.kind != "topic" or view.topic_id not in ids:
            self.notify("Last entry of this list.", timeout=2)
            return False
        for topic in self.topics[ids.index(view.topic_id) + 1 :]:
            following = View("topic", topic.id)
            self.topic_list.select_view(following)
            self.show_view(following, wait=True)
            if self.entry_list.rows:
                self.notify(terminal_line(f"Next topic: {topic.name}"), timeout=3, markup=False)
                return True
        self.topic_list.select_view(view)  # nothing further: back where it was
        self.show_view(view, keep=self.entry_list.current_id, wait=True)
        self.notify("Last entry of the last topic.", timeout=3)
        return False

    def action_step_topic(self, step: int) -> None:
        """``J``/``K``: the next or previous row of the topic list (Bookmarks and a search
        included), shown at once; the focus stays in its pane."""
        topics = self.topic_list
        if not topics.item_count:
            return
        at = topics.cursor if topics.cursor is not None else -1
        target = at + step
        if not 0 <= target < topics.item_count:
            self.notify("Last topic." if step > 0 else "First topic.", timeout=2)
            return
        item = topics.item(target)
        if item is None:
            return
        topics.select_view(item.view)
        if item.view != self.state.view:
            # a search reads every entry: in a worker, as when it is chosen in the list
            self.show_view(item.view, wait=item.view.kind != "search")

    def action_next_unread(self) -> None:
        found = self._find_unread()
        if found is None:
            self.notify("No unread entries left.", timeout=3)
            return
        view, entry_id = found
        entries = self.entry_list
        if view == self.state.view:
            index = next(i for i, r in enumerate(entries.rows) if r[0] == entry_id)
            entries.move_cursor(index)
        else:
            self.topic_list.select_view(view)
            self.show_view(view, keep=entry_id, wait=True)
            if view.kind == "topic" and view.topic_id is not None:
                name = next((t.name for t in self.topics if t.id == view.topic_id), "")
                self.notify(terminal_line(f"Next topic: {name}"), timeout=3, markup=False)
        self.set_read(entry_id, True)

    def _find_unread(self) -> tuple[View, str] | None:
        """The first unread entry after the cursor in the list shown, else in the topics
        after this one, wrapping round once to the topics before it and this one."""
        view = self.state.view
        entries = self.entry_list
        start = (entries.cursor if entries.cursor is not None else -1) + 1
        for row in entries.rows[start:]:
            if row[0] not in self.read and view is not None:
                return view, row[0]
        if view is not None and view.kind == "river":  # the river's own order, page by page
            while self.more_river():
                for row in self.entry_list.rows[start:]:
                    if row[0] not in self.read:
                        return view, row[0]
            unread = self.store.river_rows(1)
            if unread:
                self.show_view(view, keep=unread[0][0], wait=True)  # the river from the top
                return view, unread[0][0]
            return None
        ids = [t.id for t in self.topics]
        first = 0
        if view is not None and view.kind == "topic" and view.topic_id in ids:
            first = ids.index(view.topic_id) + 1
        for topic_id in ids[first:] + ids[:first]:
            if not self.unread.get(topic_id):
                continue
            for entry_id in self.store.topic_entry_ids(topic_id):
                if entry_id not in self.read:
                    return View("topic", topic_id), entry_id
        return None

    def action_read_on(self) -> None:
        pane = self.detail_pane
        if pane.scroll_y < pane.max_scroll_y or pane.more_to_lay_out:
            pane.scroll_page_down(animate=False)
        else:
            self.action_next_unread()

    # --- the entry: bookmark, note, read, link, delete -----------------------------

    @writes_to_store
    def action_toggle_bookmark(self) -> None:
        entry_id = self._need_entry()
        if entry_id is None:
            return
        on_now = self.store.toggle_bookmark(entry_id)  # written now: survives a kill -9
        self._bookmarks_changed(entry_id)
        kept = " Its note is kept." if self.store.note(entry_id) else ""
        self.notify(("Bookmarked." if on_now else "Bookmark removed.") + kept, timeout=2)

    def _bookmarks_changed(self, entry_id: str) -> None:
        self.bookmarks = frozenset(self.store.bookmark_ids())
        self.show_topics(self.state.view)
        self.load_detail(self.entry_list.current_id or entry_id)  # the shown entry stays

    @work(group=DIALOG)
    async def action_edit_note(self) -> None:
        entry_id = self._need_entry()
        entry = self.store.entry(entry_id) if entry_id is not None else None
        if entry is None:
            return
        from .screens.note import NoteScreen

        text = await self.app.push_screen_wait(NoteScreen(entry.title, self.store.note(entry.id)))
        if text is not None:
            self.save_note(entry.id, text)

    @writes_to_store
    def save_note(self, entry_id: str, text: str) -> None:
        self.store.set_note(entry_id, text)
        self._bookmarks_changed(entry_id)
        self.notify("Note saved." if text else "Note cleared.", timeout=2)

    def action_toggle_read(self) -> None:
        entry_id = self._need_entry()
        if entry_id is not None:
            self.set_read(entry_id, entry_id not in self.read)

    @writes_to_store
    def set_read(self, entry_id: str, read: bool) -> None:
        self.store.set_read(entry_id, read)
        self.read = self.read | {entry_id} if read else self.read - {entry_id}
        self.load_detail(self.entry_list.current_id or entry_id)  # a similar one's: it stays
        assignment = self.store.assignment(entry_id)  # the unread count is its topic's
        if assignment is not None and any(t.id == assignment[0] for t in self.topics):
            tid = assignment[0]
            self.unread[tid] = max(0, self.unread.get(tid, 0) + (-1 if read else 1))
            self.show_topics(self.state.view)

    @writes_to_store
    def action_mark_topic_read(self) -> None:
        view = self.state.view
        ids = [r[0] for r in self.entry_list.rows]
        if view is None or not ids:
            self.notify("No entries here to mark.", severity="warning")
            return
        count = self.store.set_read_many(ids)
        self.read = self.read | set(ids)
        self._read_changed()
        where = terminal_line(view_name(view, self.topics))
        if count:
            noun = "entry" if count == 1 else "entries"
            self.notify(f"Marked {count} {noun} read: {where}.", markup=False)
        else:
            self.notify(f"Every entry was read already: {where}.", timeout=3, markup=False)

    @writes_to_store
    def action_mark_all_read(self) -> None:
        count = self.store.mark_all_read()
        self.read = frozenset(self.store.read_ids())
        self._read_changed()
        if count:
            noun = "entry" if count == 1 else "entries"
            self.notify(f"Marked {count} {noun} read: every entry is read now (z undoes).")
        else:
            self.notify("Every entry was read already.", timeout=3)

    @writes_to_store
    def undo_mark_all_read(self) -> None:
        """Take the last "mark every entry read" back (those read again since stay read)."""
        count = self.store.undo_mark_all_read()
        if count is None:
            self.notify("Nothing to undo.", severity="warning", timeout=3)
            return
        self.read = frozenset(self.store.read_ids())
        self._read_changed()
        noun = "entry is" if count == 1 else "entries are"
        self.notify(f"Undone: mark all read. {count} {noun} unread again.")

    def _read_changed(self) -> None:
        """Counts, topic list, entry list and entry after many entries changed state."""
        self.unread = self.store.topic_unread_counts()
        view = self.state.view
        self.show_topics(view)
        current = self.entry_list.current_id
        if self.state.unread_only and view is not None:  # the read rows leave the list
            self.show_view(view, keep=current, wait=True)
        self.load_detail(current)

    def _link(self) -> str | None:
        """The current entry's link, or None after saying why there is none."""
        from .links import no_link

        self._catch_up()
        if self.detail is None:
            self.notify("No entry selected.", severity="warning")
            return None
        entry = self.detail.entry
        url = (entry.url or "").strip()
        if not url:
            self.notify(no_link(entry), severity="warning", markup=False)
            return None
        return url

    def action_open_link(self) -> None:
        from .links import is_web_link, unsafe_link

        url = self._link()
        if url is None:
            return
        shown = terminal_line(url)
        if not is_web_link(url):
            self.notify(
                f"Not a web link, not opened: {shown}",
                severity="warning",
                markup=False,
            )
            return
        problem = unsafe_link(url)
        if problem is not None:  # a terminal browser would print it as it is
            self.notify(
                f"Not opened: {problem}: {toast_title(url)}", severity="warning", markup=False
            )
            return
        self.notify(f"Opening {shown}", timeout=3, markup=False)
        self.open_in_browser(url)

    # a thread: finding the browser may run commands (xdg-settings), and a browser command
    # may wait until it exits; neither holds the keys up
    @work(thread=True, group=BROWSER, exit_on_error=False)
    def open_in_browser(self, url: str) -> None:
        from .links import find_browser, in_terminal

        browser = find_browser()
        if browser is None:
            self.app.call_from_thread(self._browser_failed, "none found")
            return
        if in_terminal(browser) and self.app.call_from_thread(self._open_in_terminal, browser, url):
            return
        try:
            opened = browser.open(url)
        except Exception as exc:  # any failure of a browser command is reported, once
            self.app.call_from_thread(self._browser_failed, f"{exc}")
            return
        if not opened:
            self.app.call_from_thread(self._browser_failed, "")

    def _open_in_terminal(self, browser: webbrowser.BaseBrowser, url: str) -> bool:
        """Hand the terminal to ``browser`` until it quits; False when the app cannot step
        aside (no terminal: a test, Textual Web)."""
        try:
            with self.app.suspend():
                opened = browser.open(url)
        except SuspendNotSupported:
            return False
        except Exception as exc:  # any failure of a browser command is reported, once
            self._browser_failed(f"{exc}")
            return True
        if not opened:
            self._browser_failed("")
        return True

    def _browser_failed(self, reason: str) -> None:
        why = f" ({terminal_line(reason)})" if reason else ""
        self.notify(
            f"No browser could open the link{why}: set $BROWSER, or press y to copy it.",
            severity="error",
            markup=False,
        )

    def action_copy_link(self) -> None:
        from .links import unsafe_link

        url = self._link()
        if url is None:
            return
        problem = unsafe_link(url)
        if problem is not None:  # what is pasted may reach a terminal or a shell
            self.notify(
                f"Not copied: {problem}: {toast_title(url)}", severity="warning", markup=False
            )
            return
        self.app.copy_to_clipboard(url)
        self.notify(f"Copied: {terminal_line(url)}", timeout=3, markup=False)

    @writes_to_store
    def action_delete_entry(self) -> None:
        """Delete the highlighted entry of the focused list (or the entry the focused entry
        pane shows); one with a bookmark or a note once the user says yes."""
        entry_id = self._focused_entry()
        if entry_id is None:
            return
        marks = self.store.marks(entry_id)
        entry = self.store.entry(entry_id) if marks else None
        if entry is not None:
            self.confirm_delete(entry_id, entry.title, marks)
        else:
            self.delete_entry(entry_id)

    def _focused_entry(self) -> str | None:
        """The entry under the cursor of the focused pane: the entry list's row, the
        similar entry, or the entry the entry pane shows; None (said in a toast) when the
        focus is on the topics or the focused list has no row."""
        focused = self.focused
        entry_id = None
        if focused is self.entry_list:
            self._catch_up()
            entry_id = self.entry_list.current_id
        elif focused is self.similar_list:
            entry_id = self.similar_list.current_id
        elif focused is self.detail_pane:
            entry_id = self.detail.entry.id if self.detail is not None else None
        else:
            self.notify("Choose an entry first: l moves to the entries.", severity="warning")
            return None
        if entry_id is None:
            self.notify("No entry selected.", severity="warning")
        return entry_id

    @work(group=DIALOG)
    async def confirm_delete(self, entry_id: str, title: str, marks: Marks) -> None:
        from .screens.confirm import ConfirmScreen

        kept = [w for w, on in (("bookmark", marks.bookmarked), ("note", marks.noted)) if on]
        question = f"Delete “{toast_title(title)}” with its {' and '.join(kept)}? Z brings it back."
        if await self.app.push_screen_wait(ConfirmScreen(question)):
            self.delete_entry(entry_id)

    @writes_to_store
    def delete_entry(self, entry_id: str) -> None:
        """Delete ``entry_id`` into the store's trash, the cursor moving on to the next row."""
        entries = self.entry_list
        ids = [r[0] for r in entries.rows]
        deleted = self.store.delete_entry(entry_id)
        if deleted is None:
            self.notify("That entry is gone already.", severity="warning")
        else:
            # the cursor's row deleted: it goes on to the next row (the one above, last)
            if entries.current_id == entry_id:
                at = ids.index(entry_id)
                neighbour = at + 1 if at + 1 < len(ids) else at - 1
                if neighbour >= 0:
                    entries.move_cursor(neighbour)
        self.reload()
        self.load_detail(entries.current_id)
        if deleted is not None:
            self.notify(f"Deleted: {toast_title(deleted.title)} (Z undoes)", markup=False)

    @writes_to_store
    def action_undo_delete(self) -> None:
        """Bring back the last deleted entry from the store's trash (after a restart too)."""
        restored = self.store.restore_last_deleted()
        if restored is None:
            self.notify("Nothing deleted to bring back.", severity="warning", timeout=3)
            return
        self.reload()
        self.jump_to_entry(restored.entry_id)
        self.load_detail(self.entry_list.current_id)
        title = toast_title(restored.title)
        if "topic_assignments" in restored.left_out:
            self.notify(
                f"Restored: {title}. Its topic is gone since: it joins one at the next grouping.",
                markup=False,
            )
        else:
            self.notify(f"Restored: {title}", markup=False)

    def action_maximize_entry(self) -> None:
        if self.maximized is not None:
            self.minimize()
        else:
            self.maximize(self.detail_pane, container=False)
            self.detail_pane.focus()

    # --- views: bookmarks, search, overview, export, refresh ---------------------------

    def action_show_bookmarks(self) -> None:
        if not self.bookmarks:
            self.notify("No bookmarks yet: press b on an entry.", severity="warning")
            return
        view = View("bookmarks")
        self.topic_list.select_view(view)
        self.show_view(view, wait=True)
        self.entry_list.focus()

    @work(group=DIALOG)
    async def action_search(self) -> None:
        from .screens.search import SearchScreen

        query = await self.app.push_screen_wait(SearchScreen(self.state.search_query or ""))
        if query is not None:
            self.run_search(query)

    def run_search(self, query: str) -> None:
        """Show the entries matching ``query`` as a topic (a blank query ends the search)."""
        query = query.strip()
        state = self.state
        if not query:
            state.search_query = None
            if state.view is not None and state.view.kind == "search":
                state.view = None
            self.reload()
            return
        view = View("search", query=query)
        state.search_query, state.view, self.search_count = query, view, 0
        self.show_topics(view)
        self.entry_list.focus()
        from topiclens.store.bounds import BoundError, check_query

        try:
            check_query(query)
        except BoundError as exc:  # too long for the store to run: said where results go
            self.search_failed(str(exc))
            return
        self.entry_list.empty_text = "Searching…"
        self.entry_list.show_rows([])
        self.show_view(view)  # in a worker: a search reads every entry

    def search_failed(self, why: str) -> None:
        """The search shown has no results because it could not run: the entry list (in
        place of "Searching…") and a toast say why."""
        message = terminal_line(why[:1].upper() + why[1:])
        self.entry_list.empty_text = message
        self.entry_list.show_rows([])
        self.notify(message, severity="warning", markup=False)

    # --- the river, saved searches, mute rules ---------------------------------------

    def action_river(self) -> None:
        """Show every unread entry, newest first, whatever its topic."""
        view = View("river")
        self.topic_list.select_view(view)
        if view != self.state.view:
            self.show_view(view, wait=True)  # its first page: one range of the date index
        self.entry_list.focus()

    def more_river(self) -> bool:
        """Add the river's next page to the list shown (the cursor stays where it is);
        False when the river is not shown or every unread entry is in it already."""
        view, shown = self.state.view, self._shown
        if view is None or view.kind != "river" or shown is None or shown[0] != view:
            return False
        more = more_river(self.store, shown[1])
        if more is None:
            return False
        self.rows_ready(view, more, self.entry_list.current_id)
        return True

    def read_saved_searches(self) -> None:
        """Read the saved searches (names and queries, one small query) and count their
        entries in a worker (a search each); the topic list shows them as they are known."""
        self.saved = {s.name: s.query for s in self.store.saved_searches()}
        self.count_saved_searches()

    def count_saved_searches(self) -> None:
        """Count the entries of the saved searches in :attr:`saved`, in a worker."""
        self.saved_found = {n: ids for n, ids in self.saved_found.items() if n in self.saved}
        if self.saved:
            self.count_saved(self.loader.worker_store)

    @work(thread=True, exclusive=True, group=SAVED, exit_on_error=False)
    def count_saved(self, store: Store) -> dict[str, frozenset[str]]:
        """Each saved search's entries now, muted ones left out (on the rows' connection)."""
        return {
            s.name: frozenset(store.saved_search_ids(s.name) or ()) for s in store.saved_searches()
        }

    @work(group=DIALOG)
    async def action_save_search(self) -> None:
        query = self.state.search_query
        if query is None:
            self.notify("Search first (/): W then saves the search.", severity="warning")
            return
        from .screens.save_search import SaveSearchScreen

        name = await self.app.push_screen_wait(SaveSearchScreen(query, frozenset(self.saved)))
        if name is None:
            return
        from topiclens.store.bounds import BoundError
        from topiclens.store.errors import StoreError

        try:
            new = self.store.save_search(name, query)
        except (BoundError, StoreError) as exc:  # a full disk, say: a toast, not a crash
            self.notify(terminal_line(f"Not saved: {exc}"), severity="error", markup=False)
            return
        self.read_saved_searches()
        self.show_topics(self.state.view)
        what = "Saved" if new else "Replaced"
        self.notify(
            terminal_line(f"{what} search “{name}”: listed above the topics."), markup=False
        )

    @work(group=DIALOG)
    async def action_mute(self) -> None:
        self._catch_up()
        entry_id = self._need_entry()
        entry = self.store.entry(entry_id) if entry_id is not None else None
        if entry is None:
            return
        from .screens.mute import MuteScreen

        feed = None
        if entry.feed_id is not None:
            found = self.store.feed(entry.feed_id)
            feed = (entry.feed_id, found.display_name if found else f"#{entry.feed_id}")
        selected = (self.app.screen.get_selected_text() or "").strip()
        words = " ".join(selected.split()) if len(selected) <= 200 else ""
        dialog = MuteScreen(entry.title, entry.source, feed, words)
        answer = await self.app.push_screen_wait(dialog)
        if answer is None:
            return
        from topiclens.store.bounds import BoundError
        from topiclens.store.errors import StoreError

        kind, value = answer
        try:
            rule, new = self.store.add_mute_rule(kind, value)
        except (BoundError, StoreError) as exc:  # a full disk, say: a toast, not a crash
            self.notify(terminal_line(f"Not muted: {exc}"), severity="error", markup=False)
            return
        self._version = self.store.external_changes()
        self.reload()  # the muted entries leave every list and count
        self.load_detail(self.entry_list.current_id)
        what = feed[1] if rule.kind == "feed" and feed else rule.value
        noun = "entry" if rule.muted == 1 else "entries"
        again = "" if new else " (muted already)"
        self.notify(
            terminal_line(
                f"Muted the {rule.kind} “{what}”{again}: {rule.muted} {noun} hidden, still "
                "found by / (`topiclens mute remove` undoes)."
            ),
            markup=False,
        )

    @work(group=DIALOG)
    async def action_overview(self) -> None:
        from .screens.overview import OverviewScreen

        view = self.state.view
        current = view.topic_id if view is not None and view.kind == "topic" else None
        if current is None and self.detail is not None and self.detail.topic is not None:
            current = self.detail.topic.id  # bookmarks or a search: the entry's topic
        overview = OverviewScreen(self.store, self.topics, current=current)
        topic_id = await self.app.push_screen_wait(overview)
        if topic_id is not None:
            self.jump_to_topic(topic_id)

    @work(group=DIALOG)
    async def action_export(self) -> None:
        if not self.bookmarks:
            self.notify("No bookmarks to export: press b on an entry first.", severity="warning")
            return
        from .screens.export import ExportScreen

        written = await self.app.push_screen_wait(ExportScreen(self.store))
        if written is not None:
            message = terminal_line(f"Bookmarks written to {written}")
            self.notify(message, title="Exported", markup=False)

    def action_refresh(self) -> None:
        self._version = self.store.external_changes()
        self.reload(resort=True)  # the one place the open reader sorts its topics again
        self.load_detail(self.entry_list.current_id)
        self.notify("Reloaded from the store; topics sorted by size again.", timeout=2)

    # --- the entry list's arrangement: unread only, sort, filter -----------------------

    def action_unread_only(self) -> None:
        """Unread entries only, or all again (the filter dialog's "unread only" too)."""
        self.state.unread_only = not self.state.unread_only
        self.rearrange()
        self.place_changed()
        self.notify("Unread entries only." if self.state.unread_only else "All entries.", timeout=2)

    @work(group=DIALOG)
    async def action_sort(self) -> None:
        from .screens.sort import SortScreen

        sort = await self.app.push_screen_wait(SortScreen(self.state.sort))
        if sort is None or sort == self.state.sort:
            return
        self.state.sort = sort
        self.rearrange()
        self.place_changed()
        self.notify(f"Sorted by {SORTS[sort].split(',')[0].lower()}.", timeout=2)

    @work(group=DIALOG)
    async def action_filter(self) -> None:
        from .screens.filter import FilterScreen

        rows = self._shown[1].rows if self._shown is not None else self.entry_list.rows
        counts: dict[str, int] = {}
        for row in rows:
            counts[row[2]] = counts.get(row[2], 0) + 1
        sources = sorted(counts.items(), key=lambda s: (-s[1], s[0].casefold()))
        state = self.state
        dialog = FilterScreen(sources, state.row_filter, unread_only=state.unread_only)
        answer = await self.app.push_screen_wait(dialog)
        if answer is None:
            return
        rule, unread_only = answer
        if rule == state.row_filter and unread_only == state.unread_only:
            return
        state.row_filter, state.unread_only = rule, unread_only
        self.rearrange()
        self.place_changed()
        active = rule.active or unread_only
        self.notify("Filter set." if active else "Filter cleared.", timeout=2)

    # --- topic corrections: each lasts across re-clusters and imports ------------------

    @work(group=DIALOG)
    async def action_rename_topic(self) -> None:
        topic = self.topic_here()
        if topic is None:
            return
        from .screens.topic_name import TopicNameScreen

        dialog = TopicNameScreen("Rename topic", topic_subject(topic), topic.name)
        name = await self.app.push_screen_wait(dialog)
        if name:
            from topiclens.clustering.corrections import rename_topic

            self.correct(lambda store: rename_topic(store, topic.id, name))

    @work(group=DIALOG)
    async def action_move_entry(self) -> None:
        entry_id = self._need_entry()
        detail = self.detail
        if entry_id is None or detail is None:
            return
        from .screens.topic_picker import TopicPickerScreen

        own = detail.topic.id if detail.topic is not None else None
        targets = [t for t in self.topics if t.id != own]
        title = f"Move “{detail.entry.title}” to…"
        topic_id = await self.app.push_screen_wait(TopicPickerScreen("Move entry", title, targets))
        if topic_id is not None:
            from topiclens.clustering.corrections import move_entry

            # the cursor stays in this list, on the next entry; the toast names the topic
            self.correct(lambda store: move_entry(store, entry_id, topic_id), stay="neighbour")

    @work(group=DIALOG)
    async def action_merge_topic(self) -> None:
        topic = self.topic_here()
        if topic is None:
            return
        from .screens.topic_name import TopicNameScreen
        from .screens.topic_picker import TopicPickerScreen

        targets = [t for t in self.topics if t.id != topic.id]
        title = f"Merge “{topic.name}” with…"
        other = await self.app.push_screen_wait(TopicPickerScreen("Merge topics", title, targets))
        if other is None:
            return
        partner = next((t for t in self.topics if t.id == other), None)
        subject = f"{topic_subject(topic)} + {topic_subject(partner) if partner else other}"
        keeps = f"keeps “{topic.name}”"
        dialog = TopicNameScreen("Merged topic's name", subject, optional=keeps)
        name = await self.app.push_screen_wait(dialog)
        if name is None:
            return
        from topiclens.clustering.corrections import merge_topics

        ids = [topic.id, other]  # a blank name: the first topic keeps its name
        self.correct(lambda store: merge_topics(store, ids, name or None))

    @work(group=DIALOG)
    async def action_split_topic(self) -> None:
        topic = self.topic_here()
        if topic is None:
            return
        from .screens.split_topic import SplitTopicScreen

        k = await self.app.push_screen_wait(SplitTopicScreen(topic_subject(topic), topic.size))
        if k is not None:
            from topiclens.clustering.corrections import split_topic

            self.correct(lambda store: split_topic(store, topic.id, k), "Splitting…")

    @work(group=DIALOG)
    async def action_topic_from_search(self) -> None:
        from .screens.topic_terms import TopicTermsScreen

        answer = await self.app.push_screen_wait(TopicTermsScreen(self.state.search_query or ""))
        if answer is not None:
            from topiclens.clustering.corrections import new_topic

            name, terms = answer
            self.correct(lambda store: new_topic(store, name, terms), "Gathering entries…")

    def action_hide_topic(self) -> None:
        topic = self.topic_here()
        if topic is None:
            return
        from topiclens.clustering.corrections import hide_topic

        # the topic list's cursor goes on to the next topic; the toast says where the
        # entries went
        self.correct(lambda store: hide_topic(store, topic.id), stay="neighbour")

    @work(group=DIALOG)
    async def action_show_topic(self) -> None:
        from topiclens.clustering.corrections import hidden_topics, show_topic

        from .screens.topic_picker import TopicPickerScreen

        hidden = hidden_topics(self.store)
        if not hidden:
            self.notify("No hidden topics.", severity="warning", timeout=3)
            return
        title = "Show which hidden topic again?"
        topic_id = await self.app.push_screen_wait(TopicPickerScreen("Show topic", title, hidden))
        if topic_id is not None:
            self.correct(lambda store: show_topic(store, topic_id))

    @writes_to_store
    def action_undo_topic(self) -> None:
        """Take back the last topic correction or "mark every entry read", whichever was
        made last (both are logged in the store: after a restart too)."""
        from topiclens.clustering.corrections import undo

        last = self.store.last_undo()
        if last is not None and last[0] == "mark-read":
            self.undo_mark_all_read()
        else:
            self.correct(undo, stay="touched")

    def topic_here(self) -> Topic | None:
        """The topic shown (in a topic's view) or else the topic of the entry shown."""
        topic_id = None
        view = self.state.view
        if view is not None and view.kind == "topic":
            topic_id = view.topic_id
        elif self.detail is not None and self.detail.topic is not None:
            topic_id = self.detail.topic.id
        topic = next((t for t in self.topics if t.id == topic_id), None)
        if topic is None:
            self.notify("No topic chosen: choose one in the topic list.", severity="warning")
        return topic

    @property
    def correcting(self) -> bool:
        """A correction is running: another is refused until it ends."""
        return any(w.group == CORRECTION and not w.is_finished for w in self.workers)

    def correct(
        self, correction: Correction, working: str | None = None, *, stay: str | None = None
    ) -> None:
        """Run ``correction`` on the store in a thread worker (its end: :meth:`corrected`
        or :meth:`correction_failed`). ``stay``: the view stays where it is, and when its
        topic is gone goes to the "neighbour" topic in the list, or the topic the change
        "touched"; without it, the view goes to the changed topic."""
        if self.correcting:
            self.notify("A correction is still running.", severity="warning", timeout=3)
            return
        if self.preparing:  # the grouping would replace the topics under the correction
            self.notify(
                "Topics are being grouped: correct them once they are ready.", severity="warning"
            )
            return
        if working:
            self.notify(working, timeout=3)
        self._stay = stay
        self.run_correction(correction)

    # on the screen's own connection, as the first start's grouping: SQLite's data_version
    # then never mistakes our own writes for another process's
    @work(thread=True, group=CORRECTION, exit_on_error=False)
    def run_correction(self, correction: Correction) -> Change | None:
        return correction(self.store)

    def corrected(self, change: Change | None) -> None:
        """Read the topics again, show the changed topic (the entry under the cursor kept
        when it is there) and say what changed."""
        stay, self._stay = self._stay, None
        if change is None:
            self.notify("Nothing to undo.", severity="warning", timeout=3)
            return
        if stay is not None:
            self.corrected_in_place(change, stay)
            return
        if change.topic_id is not None:
            self.state.view = View("topic", change.topic_id)  # reload falls back if gone
        self._version = self.store.external_changes()
        self.reload()
        self.load_detail(self.entry_list.current_id)
        self.notify(terminal_line(change.message), markup=False)

    def corrected_in_place(self, change: Change, stay: str) -> None:
        """Read the topics again keeping the reader's place: the view stays (when its
        topic is gone: the next topic in the list, or the one the change touched), the
        cursor on its entry or, when that left the list, the entry after it; the toast
        says where things went."""
        from .places import nearest

        view = self.state.view
        entries = self.entry_list
        current = entries.current_id
        near = nearest([r[0] for r in entries.rows], current)
        listed = [t.id for t in self.topics]
        message = change.message
        self._version = self.store.external_changes()
        alive = {t.id for t in self.store.topics()}
        if view is not None and view.kind == "topic" and view.topic_id not in alive:
            touched = change.topic_id if stay == "touched" and change.topic_id in alive else None
            around = [t for t in nearest(listed, view.topic_id) if t in alive]
            target = touched if touched is not None else next(iter(around), None)
            self.state.view = View("topic", target) if target is not None else None
        self.reload(keep=current)
        shown = self.state.view
        if shown == view and current is not None and entries.current_id != current:
            present = {r[0] for r in entries.rows}
            after = next((e for e in near if e in present), None)
            if after is not None:  # the entry left this list: the next one takes its place
                entries.move_cursor(next(i for i, r in enumerate(entries.rows) if r[0] == after))
        self.load_detail(entries.current_id)
        names = {t.id: toast_title(t.name) for t in self.topics}
        if shown != view:  # the topic shown is gone: where its entries went, and what shows
            if change.topic_id in names and (shown is None or shown.topic_id != change.topic_id):
                message += f" (most to '{names[change.topic_id]}')"
            if shown is not None and shown.topic_id in names:
                message += f"; showing '{names[shown.topic_id]}'"
        self.notify(terminal_line(message), markup=False)

    def correction_failed(self, error: BaseException | None) -> None:
        from topiclens.clustering.corrections import CorrectionError

        self._stay = None
        if isinstance(error, StoreReplaced):  # nothing written: the new file is shown
            self.store_replaced(error)
            return
        if isinstance(error, CorrectionError):
            message = str(error)
        else:  # a failed correction is a toast, never a dead reader
            message = f"Could not correct the topics: {error}"
        self.notify(terminal_line(message), severity="error", markup=False)

    # --- feeds: a refresh (the key's or the schedule's), subscribing, the feeds screen ---

    @property
    def fetching_feeds(self) -> bool:
        """A refresh or a subscription is fetching: another waits until it ends."""
        return any(w.group == FEEDS and not w.is_finished for w in self.workers)

    def action_refresh_feeds(self) -> None:
        self.start_refresh(None)

    def refresh_due_feeds(self) -> None:
        """The schedule's tick: refresh the feeds that are due, if any (quietly when
        nothing arrived and nothing failed)."""
        if not self.fetching_feeds and not self.preparing:
            self.start_refresh(None, scheduled=True)

    def start_refresh(self, feed_ids: list[int] | None, *, scheduled: bool = False) -> bool:
        """Refresh every feed (those of ``feed_ids``; ``scheduled``: the due ones) in a
        thread worker, its end in :meth:`refreshed`. False when another fetch or the first
        grouping is running (said in a toast, unless the schedule asked)."""
        from .first_start import start_resource_tracker

        if self.fetching_feeds or self.preparing:
            if not scheduled:
                busy = "A feed is being fetched" if self.fetching_feeds else "Topics are grouped"
                self.notify(f"{busy}: refresh once it ends.", severity="warning", timeout=3)
            return False
        self._feed_job = "schedule" if scheduled else "refresh"
        start_resource_tracker()  # many feeds parse in worker processes (as the grouping)
        if not scheduled:  # the schedule shows its bar once it knows a feed is due
            self.show_progress("Refreshing feeds", 0)
        self.fetch_feeds(feed_ids, scheduled)
        return True

    @work(thread=True, exclusive=True, group=FEEDS, exit_on_error=False)
    def fetch_feeds(self, feed_ids: list[int] | None, scheduled: bool) -> RefreshSummary | None:
        """The refresh itself, in a process of its own (``feed_process.py``: this thread
        only waits, so the keys keep the interpreter); each feed is one short transaction
        there. None: the schedule found no feed due (asked here, on the rows' connection:
        no process is started for nothing)."""
        from .feed_process import refresh_in_process

        if scheduled:
            from topiclens.feeds.schedule import due_feeds

            feed_ids = [f.id for f in due_feeds(self.loader.worker_store)]
            if not feed_ids:
                return None
            n = len(feed_ids)
            due = f"Refreshing {n} due {'feed' if n == 1 else 'feeds'}"
            self.app.call_from_thread(self.show_progress, due, 0)
        worker = get_current_worker()
        return refresh_in_process(
            self.store.path,
            feed_ids,
            progress=self._refresh_progress,
            cancelled=lambda: worker.is_cancelled,
        )

    def _refresh_progress(self, step: RefreshProgress) -> None:
        """A refresh's progress, from its thread: one step per finished feed."""
        if step.placing:
            text, fraction = "Placing the new entries in their topics", 0.0
        else:
            text, fraction = f"Refreshing feeds: {step.done} of {step.total}", 0.0
            if step.total:
                fraction = step.done / step.total
            if step.feed is not None:
                found = f"{step.feed.new} new" if step.feed.new else step.feed.outcome
                text += f" ({step.feed.name}: {found})"
        self.app.call_from_thread(self.show_progress, text, fraction)

    def subscribe_feed(self, url: str) -> bool:
        """Subscribe to ``url`` and fetch it (in the feeds' worker: never beside a refresh);
        False when another fetch is running."""
        from .first_start import start_resource_tracker

        if self.fetching_feeds or self.preparing:
            self.notify("A feed is being fetched: add it once that ends.", severity="warning")
            return False
        self._feed_job = "subscribe"
        start_resource_tracker()  # placing its entries may tokenize in worker processes
        self.notify(terminal_line(f"Subscribing to {url}…"), timeout=3, markup=False)
        self.show_progress(f"Subscribing to {url}", 0)
        self.fetch_subscription(url)
        return True

    @work(thread=True, exclusive=True, group=FEEDS, exit_on_error=False)
    def fetch_subscription(self, url: str) -> Subscribed:
        from topiclens.feeds.subscribe import subscribe

        with Store(self.store.path) as store:
            return subscribe(store, url)

    def feeds_fetched(self, worker: Worker[object]) -> None:
        """A refresh or a subscription ended: its toasts, the store read again."""
        job, self._feed_job = self._feed_job, None
        self.hide_progress()
        if worker.state == WorkerState.CANCELLED:
            return
        if worker.state == WorkerState.ERROR:  # the store's own error: feeds' are results
            self.feeds_changed()
            message = terminal_line(f"Could not fetch the feeds: {worker.error}")
            self.notify(message, severity="error", timeout=15, markup=False)
            return
        if job == "subscribe":
            self.subscribed(worker.result)  # type: ignore[arg-type]
        else:
            self.refreshed(worker.result, scheduled=job == "schedule")  # type: ignore[arg-type]

    def refreshed(self, summary: RefreshSummary | None, *, scheduled: bool) -> None:
        """One toast saying what arrived and where, one naming the feeds that failed; the
        new entries marked new in their lists until read (this session)."""
        if summary is None:
            return  # nothing was due
        self.new = self.new | frozenset(summary.new_ids)
        if summary.feeds and (summary.new or summary.updated or summary.count("changed")):
            self.feeds_changed()
        elif summary.feeds:
            self.feeds_changed(reload=False)  # checks and errors only: no row changed
        if not summary.feeds:
            if not scheduled:
                self.notify("No feeds to refresh: F opens your feeds, a adds one.", timeout=5)
            return
        if summary.new or summary.updated or not scheduled:
            self.notify(terminal_line(summary.toast()), title="Feeds", timeout=10, markup=False)
        if summary.unplaced:
            self.notify(terminal_line(f"New entries {summary.unplaced}"), severity="warning")
        if summary.failed:
            self.notify(failed_feeds(summary), severity="error", timeout=20, markup=False)

    def subscribed(self, result: Subscribed) -> None:
        if result.error is not None:
            self.notify(terminal_line(result.error), severity="error", timeout=15, markup=False)
            return
        name = result.feed.display_name if result.feed is not None else ""
        if result.already:
            self.notify(terminal_line(f"Subscribed already: {name}"), timeout=5, markup=False)
            return
        if result.summary is not None:
            self.new = self.new | frozenset(result.summary.new_ids)
            found = result.summary.toast()
        else:
            found = "subscribed"
        self.feeds_changed()
        self.notify(terminal_line(f"{name}: {found}"), title="Subscribed", markup=False)

    def feeds_changed(self, *, reload: bool = True) -> None:
        """The feeds' own work changed the store (not another process): read it again,
        and the feeds screen too when it is open."""
        self._version = self.store.external_changes()
        if reload:  # thousands of new rows: read in a worker, shown in reloaded()
            self.read_store_again(
                self.loader.worker_store, self.state.view, self.entry_list.current_id
            )
        else:
            self.known_entries = self.store.count_entries()
        from .screens.feeds import FeedsScreen

        for screen in self.app.screen_stack:
            if isinstance(screen, FeedsScreen):
                screen.show_feeds()

    @work(thread=True, exclusive=True, group=RELOAD, exit_on_error=False)
    def read_store_again(
        self, store: Store, view: View | None, entry_id: str | None
    ) -> tuple[int, StoreRead]:
        """What a reload shows, with the rows of ``view`` and the detail of ``entry_id``,
        read on the workers' connection; with the epoch it was read at."""
        epoch = self._store_epoch
        return epoch, read_store(store, view=view, entry_id=entry_id, count=True)

    def reloaded(self, epoch: int, found: StoreRead) -> None:
        """The store read again in a worker: shown in one step, unless a reload or a
        key's write came after the read began (then it is read again)."""
        if epoch != self._store_epoch:
            self.read_store_again(
                self.loader.worker_store, self.state.view, self.entry_list.current_id
            )
            return
        self.known_entries = found.entries
        self.show_store(found, None, wait=False)
        current = self.entry_list.current_id
        if found.detail is not None and found.detail[0] == current:
            self.detail = found.detail[1]
        else:
            self.load_detail(current)

    @work(group=DIALOG)
    async def action_feeds(self) -> None:
        from .screens.feeds import FeedsScreen

        await self.app.push_screen_wait(FeedsScreen(self.store, self))

    # --- the first start, new entries, other processes ---------------------------------

    def first_frame_shown(self) -> None:
        """What waits for the first frame (the app calls this on Textual's Ready): the
        scan for entries that still need a topic, which would compete with drawing it."""
        gc.freeze()  # start-up's objects out of the collector's way (docs/reader.md, Speed)
        self._first_frame_shown = True
        self.restore_scroll()
        view = self.state.view
        if view is not None:
            self.loader.read_ahead(view, [t.id for t in self.topics])
        if self.cluster and self.topics and not self.preparing:
            self.count_unplaced(self.loader.worker_store)

    @work(thread=True, group=CHECK, exit_on_error=False)
    def count_unplaced(self, store: Store) -> int:
        """Entries imported since the last grouping (counting them takes a scan)."""
        return store.count_unassigned()

    def start_preparing(self) -> None:
        """Group the entries in a thread worker (the import of the bundled corpus first,
        when the store is empty)."""
        from .first_start import start_resource_tracker

        self.preparing = True
        start_resource_tracker()
        self.prepare()

    @work(thread=True, exclusive=True, group=PREPARE, exit_on_error=False)
    def prepare(self) -> None:
        from .first_start import prepare_store

        worker = get_current_worker()

        def progress(stage: str, fraction: float) -> None:
            self.app.call_from_thread(self.show_progress, stage, fraction)

        prepare_store(self.store, progress, lambda: worker.is_cancelled)

    def prepared(self, worker: Worker[None]) -> None:
        """The grouping ended (done, failed or cancelled): the topics are read again."""
        self.preparing = False
        self.hide_progress()
        gc.freeze()  # the clustering's modules stay loaded: out of the collector's way
        self._version = self.store.external_changes()
        # entries this reader imported itself are not "new from another process"
        self.known_entries = self.store.count_entries()
        self.reload()
        if worker.state == WorkerState.ERROR:
            message = terminal_line(f"Could not group the entries into topics: {worker.error}")
            self.notify(message, severity="error", timeout=30, markup=False)
            if not self.topics:
                self.entry_list.empty_text = f"{message}. `topiclens cluster` shows more."
        if worker.state == WorkerState.SUCCESS:
            self.notify(f"{len(self.topics)} topics ready.")

    def show_progress(self, stage: str, fraction: float) -> None:
        """Show a stage of slow work and how far it got, in the footer's line."""
        text = self.query_one(KeyFooter).show_progress(stage, fraction)
        if not self.topics:
            self.entry_list.empty_text = f"{text}…"

    def hide_progress(self) -> None:
        self.query_one(KeyFooter).hide_progress()

    def poll_store(self) -> None:
        """Reload when another process committed to the store (a cheap PRAGMA read), or
        when its file was replaced."""
        if self.check_store_file(pressed=False):
            return
        if self.preparing or self.fetching_feeds:  # our own feeds' connection commits
            return
        try:
            version = self.store.external_changes()
        except StoreError as exc:  # the next tick asks again
            self.app.log.warning(f"store not polled: {exc}")
            return
        if version != self._version:
            self._version = version
            self.reload()
            self.load_detail(self.entry_list.current_id)
            self._store_changed_toast()

    # --- the store's file replaced, a full disk ------------------------------------------

    def check_store_file(self, *, pressed: bool = True) -> bool:
        """Whether the store's file was replaced (or moved away) under the reader; if so,
        open the new file, show it and say so (``pressed``: a key's write was refused)."""
        if not self.store.replaced():
            return False
        for group in (ROWS, READ_AHEAD, CHECK):  # reads on the old file: their rows are stale
            self.workers.cancel_group(self, group)
        try:
            self.store.check_file()  # the loader's connection closes first (RowLoader)
        except StoreReplaced as exc:
            self.store_replaced(exc, pressed=pressed)
            return True
        return False

    def store_replaced(self, error: StoreReplaced, *, pressed: bool = True) -> None:
        """The store refused a write, or the poll found its file replaced: show the file
        now at the store's path, or say that none is there (``pressed``: a key's write
        was refused, so say it again; the poll says it once)."""
        if self.store.replaced():  # moved or deleted: nothing to open
            if pressed or not self._store_gone:
                self.notify(terminal_line(str(error)), severity="error", timeout=20, markup=False)
            self._store_gone = True
            return
        self._store_gone = False
        self._saved_place = None  # the new file has its own (or none)
        self.new = frozenset()
        self._version = self.store.external_changes()
        self.known_entries = self.store.count_entries()
        self.reload()
        self.load_detail(self.entry_list.current_id)
        again = " Nothing was written: press the key again." if pressed else ""
        self.notify(
            f"The store's file was replaced: the reader shows the new one now.{again}",
            severity="warning",
            timeout=15,
        )

    def store_failed(self, error: StoreError) -> None:
        """A write the store refused (a full disk, a read-only or locked store): a toast."""
        if isinstance(error, StoreReplaced):
            self.store_replaced(error)
            return
        message = terminal_line(f"Not saved: {error}")
        self.notify(message, title="Store", severity="error", timeout=15, markup=False)

    def _count_entries(self) -> None:
        if self.known_entries is None:
            self.known_entries = self.store.count_entries()

    def _store_changed_toast(self) -> None:
        """One toast for another process's change, saying how many entries are new; its
        further commits within QUIET_AFTER_TOAST seconds reload without a toast."""
        count = self.store.count_entries()
        new = count - self.known_entries if self.known_entries is not None else 0
        self.known_entries = count
        now = time.monotonic()
        if new > 0:
            noun = "entry" if new == 1 else "entries"
            self.notify(f"{new} new {noun} from another process: topics and entries reloaded.")
        elif now - self._toast_at >= QUIET_AFTER_TOAST:
            self.notify("The store changed elsewhere: topics and entries reloaded.")
        else:
            return
        self._toast_at = now


def failed_feeds(summary: RefreshSummary, shown: int = 5) -> str:
    """One toast naming the feeds that failed, each with its error."""
    failed = summary.failed
    parts = [f"{r.name}: {r.error or r.outcome}" for r in failed[:shown]]
    if len(failed) > shown:
        parts.append(f"and {len(failed) - shown} more (F lists them)")
    noun = "feed" if len(failed) == 1 else "feeds"
    return terminal_line(f"{len(failed)} {noun} failed: " + "; ".join(parts))


def toast_title(text: str) -> str:
    """A title for a toast: one line, cut to a toast's width."""
    return cut_line(text, 60)
