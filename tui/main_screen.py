"""The reader's main screen: it owns the state and hands it to the three panes."""

from __future__ import annotations

import gc
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.reactive import var
from textual.screen import Screen
from textual.widget import Widget
from textual.worker import Worker, WorkerState
from topiclens.store import Store, Topic

from .commands import MAIN, bindings
from .corrections import CorrectionActions
from .details import load_detail
from .display import literal, terminal_line
from .first_start import GROUP as FIRST_START
from .first_start import FirstStart
from .model import Detail, Rows, View
from .reading_loop import ReadingLoopActions
from .row_loader import RowLoader
from .sorting import SortFilterActions
from .stepping import step_entry
from .views import empty_text, first_topic, search_highlight, view_title
from .widgets import DetailPane, EntryList, KeyFooter, SimilarList, TopicList, topic_items


class MainScreen(SortFilterActions, ReadingLoopActions, CorrectionActions, Screen[None]):
    """Topics on the left, the entries of the chosen topic and the chosen entry on the right."""

    BINDINGS: ClassVar[list[BindingType]] = bindings(MAIN)
    AUTO_FOCUS = "#topics"

    bookmarks: var[frozenset[str]] = var(frozenset, always_update=True)
    read: var[frozenset[str]] = var(frozenset, always_update=True)
    unread_only: var[bool] = var(False)
    detail: var[Detail | None] = var(None, always_update=True)

    def __init__(self, store: Store, *, cluster: bool = True, poll_interval: float = 2.0) -> None:
        super().__init__()
        self.store = store
        self.cluster = cluster
        self.poll_interval = poll_interval
        self.topics: list[Topic] = []
        self.unread: dict[int, int] = {}
        self.view: View | None = None
        self.search_query: str | None = None
        self._search_count = 0
        self.loader = RowLoader(self, store, self._rows_ready)
        self.preparing = False
        self._version = 0
        self.first_start = FirstStart(self)

    def compose(self) -> ComposeResult:
        # no containers: the topics dock on the left, the right-hand panes stack in the
        # screen's vertical layout (two fewer widgets to style, lay out and composite)
        yield TopicList(id="topics")
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

    def on_mount(self) -> None:
        self.topic_list.border_title = "Topics"
        self.detail_pane.border_title = "Entry"
        self.entry_list.data_bind(MainScreen.bookmarks, MainScreen.read)
        self.detail_pane.data_bind(MainScreen.detail)
        similar = self.query_one("#similar", SimilarList)
        similar.border_title = "Similar entries"
        similar.data_bind(MainScreen.detail)
        self._version = self.store.external_changes()
        self.restore_state()  # the last session's place, sort and filter
        self.reload()  # the first frame shows the first entry in full (_rows_ready)
        if self.cluster and not self.topics:
            empty = not self.store.count_entries()
            self.first_start.show(
                "Importing the bundled corpus" if empty else "Grouping entries", 0
            )
            self.preparing = True
            self.call_after_refresh(self.start_preparing)  # the first frame comes first
        self.set_interval(self.poll_interval, self.poll_store)

    def on_resize(self) -> None:
        # under 30 lines the panes share less height (reader.tcss, MainScreen.-short); a
        # class set only when it changes, so a normal start restyles nothing
        self.set_class(self.size.height < 30, "-short")

    def first_frame_shown(self) -> None:
        """What waits for the first frame (the app calls this on Textual's Ready): the
        scan for entries that still need a topic, which would compete with drawing it."""
        gc.freeze()  # start-up's objects out of the collector's way (docs/reader.md, Speed)
        if self.cluster and self.topics and not self.preparing:
            self.first_start.check_new_entries(self.loader.worker_store)

    def reload(self) -> None:
        """Read topics, bookmarks and read state again and show the current view."""
        store = self.store
        self.loader.forget()
        self.topics = store.topics()
        self.unread = store.topic_unread_counts()
        self.bookmarks = frozenset(store.bookmark_ids())
        self.read = frozenset(store.read_ids())
        view = self.view
        valid = {t.id for t in self.topics}
        if view is not None and (
            (view.kind == "topic" and view.topic_id not in valid)
            or (view.kind == "bookmarks" and not self.bookmarks)
        ):
            view = None
        opening = first_topic(self.topics)
        if view is None and opening is not None:
            view = View("topic", opening.id)
        self.show_topics(view)
        if view is not None:
            # a search scans every entry: never on the event loop
            wait = view.kind != "search"
            self.show_view(view, keep=self.entry_list.current_id, wait=wait)
        else:
            self.view = None
            self.entry_list.empty_text = (
                "Preparing topics…" if self.preparing else "No topics yet: import some entries."
            )
            self.entry_list.show_rows([])

    def show_topics(self, current: View | None) -> None:
        search = None
        if self.search_query is not None:
            search = (self.search_query, self._search_count)
        items = topic_items(self.topics, self.unread, len(self.bookmarks), search)
        self.topic_list.show(items, current)

    def on_unmount(self) -> None:
        self.loader.close()

    def show_view(self, view: View, keep: str | None = None, *, wait: bool = False) -> None:
        """Show ``view`` in the entry list: at once when ``wait`` or when its rows are
        kept, else from a worker."""
        self.view = view
        self.loader.load(view, keep, wait=wait)

    def _rows_ready(self, view: View, found: Rows, keep: str | None) -> None:
        if view != self.view:
            return
        rows, also = found
        if view.kind == "search" and self._search_count != len(rows):
            self._search_count = len(rows)
            self.show_topics(view)
        (rows, also), keep = self.arranged_rows(view, found, keep)  # sort, filter (sorting.py)
        entries = self.entry_list
        entries.empty_text = empty_text(view, self.unread_only, self.row_filter.active)
        entries.border_title = literal(view_title(view, len(rows), self.topics, also))
        entries.border_subtitle = literal(self.list_subtitle())
        entries.highlight = match = search_highlight(view)
        self.detail_pane.show_matches(match)
        entries.show_rows(rows, keep, also=also)
        # the entry under the cursor is loaded here, in the same turn of the event loop as
        # the rows, not on the list's Highlighted message: the rows and their first entry
        # then reach the terminal in one frame, not two
        current = entries.current_id
        if current is None:
            self.detail = None
        elif self.detail is None or self.detail.entry.id != current:
            self.load_detail(current)
        self.loader.read_ahead(view, [t.id for t in self.topics])

    def load_detail(self, entry_id: str | None) -> None:
        self.detail = (
            None if entry_id is None else load_detail(self.store, entry_id, self.topics, self.read)
        )

    def start_preparing(self) -> None:
        self.first_start.start()

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group == FIRST_START and worker.state in (
            WorkerState.SUCCESS,
            WorkerState.ERROR,
            WorkerState.CANCELLED,
        ):
            self.first_start.finished()
            gc.freeze()  # the clustering's modules stay loaded: out of the collector's way
            self._version = self.store.external_changes()
            self.reload()
            if worker.state == WorkerState.ERROR:
                message = terminal_line(f"Could not group the entries into topics: {worker.error}")
                self.notify(message, severity="error", timeout=30, markup=False)
                if not self.topics:
                    self.entry_list.empty_text = f"{message}. `topiclens cluster` shows more."
            if worker.state == WorkerState.SUCCESS:
                self.notify(f"{len(self.topics)} topics ready.")
        elif worker.state == WorkerState.ERROR:
            message = terminal_line(f"Could not read the store: {worker.error}")
            self.notify(message, severity="error", markup=False)

    def poll_store(self) -> None:
        """Reload when another process committed to the store (a cheap PRAGMA read)."""
        if self.preparing:
            return
        version = self.store.external_changes()
        if version != self._version:
            self._version = version
            self.reload()
            self.load_detail(self.entry_list.current_id)
            self.store_changed_toast()  # one toast, with the count of new entries

    @on(TopicList.Chosen)
    def _topic_chosen(self, event: TopicList.Chosen) -> None:
        if event.view != self.view:
            self.show_view(event.view)
        if event.opened:
            self.entry_list.focus()

    @on(EntryList.Highlighted)
    def _entry_highlighted(self, event: EntryList.Highlighted) -> None:
        entry_id = event.entry_id
        if entry_id != self.entry_list.current_id:
            return  # sent before the rows or the cursor changed again: a newer one follows
        if entry_id is not None and self.detail is not None and self.detail.entry.id == entry_id:
            return  # shown already (_rows_ready loads the entry under the cursor)
        self.load_detail(entry_id)

    @on(EntryList.Opened)
    def _entry_opened(self, event: EntryList.Opened) -> None:
        if event.entry_id not in self.read:
            self.set_read(event.entry_id, True)
        self.detail_pane.focus()

    @on(SimilarList.Jump)
    def _jump(self, event: SimilarList.Jump) -> None:
        self.jump_to_entry(event.entry_id)

    def jump_to_entry(self, entry_id: str) -> None:
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
        if view != self.view:
            self.show_view(view, wait=True)
        self.entry_list.focus()

    def _panes(self) -> list[Widget]:
        return [self.topic_list, self.entry_list, self.detail_pane, self.query_one(SimilarList)]

    def action_pane(self, step: int) -> None:
        panes = self._panes()
        focused = self.focused
        index = 0
        for i, pane in enumerate(panes):
            if focused is pane or (focused is not None and pane in focused.ancestors):
                index = i
        panes[max(0, min(len(panes) - 1, index + step))].focus()

    def action_step_entry(self, step: int) -> None:
        step_entry(self, step)

    def _current(self) -> str | None:
        similar = self.query_one(SimilarList)
        if self.focused is similar and similar.current_id is not None:
            return similar.current_id  # b, N, r act on the highlighted similar entry
        return self.detail.entry.id if self.detail is not None else None

    def _need_entry(self) -> str | None:
        entry_id = self._current()
        if entry_id is None:
            self.notify("No entry selected.", severity="warning")
        return entry_id

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
        self.show_topics(self.view)
        self.load_detail(self.entry_list.current_id or entry_id)  # the shown entry stays

    def action_edit_note(self) -> None:
        entry_id = self._need_entry()
        entry = self.store.entry(entry_id) if entry_id is not None else None
        if entry is None:
            return
        from .screens.note import NoteScreen

        note = self.store.note(entry.id)

        def save(text: str | None) -> None:
            if text is None:
                return
            self.store.set_note(entry_id, text)
            self._bookmarks_changed(entry_id)
            self.notify("Note saved." if text else "Note cleared.", timeout=2)

        self.app.push_screen(NoteScreen(entry.title, note), save)

    def action_show_bookmarks(self) -> None:
        if not self.bookmarks:
            self.notify("No bookmarks yet: press b on an entry.", severity="warning")
            return
        view = View("bookmarks")
        self.topic_list.select_view(view)
        self.show_view(view, wait=True)
        self.entry_list.focus()

    def action_search(self) -> None:
        from .screens.search import SearchScreen

        self.app.push_screen(SearchScreen(self.search_query or ""), self.run_search)

    def run_search(self, query: str | None) -> None:
        if query is None:
            return
        query = query.strip()
        if not query:
            self.search_query = None
            if self.view is not None and self.view.kind == "search":
                self.view = None
            self.reload()
            return
        view = View("search", query=query)
        self.search_query, self._search_count, self.view = query, 0, view
        self.show_topics(view)
        self.entry_list.empty_text = "Searching…"
        self.entry_list.show_rows([])
        self.show_view(view)  # in a worker: a search reads every entry
        self.entry_list.focus()

    def action_overview(self) -> None:
        from .screens.overview import OverviewScreen

        def chosen(topic_id: int | None) -> None:
            if topic_id is not None:
                self.jump_to_topic(topic_id)

        self.app.push_screen(OverviewScreen(self.store, self.topics), chosen)

    def action_toggle_read(self) -> None:
        entry_id = self._need_entry()
        if entry_id is not None:
            self.set_read(entry_id, entry_id not in self.read)

    def set_read(self, entry_id: str, read: bool) -> None:
        self.store.set_read(entry_id, read)
        self.read = self.read | {entry_id} if read else self.read - {entry_id}
        self.load_detail(self.entry_list.current_id or entry_id)  # a similar one's: it stays
        assignment = self.store.assignment(entry_id)  # the unread count is its topic's
        if assignment is not None and any(t.id == assignment[0] for t in self.topics):
            tid = assignment[0]
            self.unread[tid] = max(0, self.unread.get(tid, 0) + (-1 if read else 1))
            self.show_topics(self.view)

    def action_export(self) -> None:
        from .screens.export import ExportScreen

        if not self.bookmarks:
            self.notify("No bookmarks to export: press b on an entry first.", severity="warning")
            return
        self.app.push_screen(ExportScreen(self.store))

    def action_refresh(self) -> None:
        self._version = self.store.external_changes()
        self.reload()
        self.load_detail(self.entry_list.current_id)
        self.notify("Reloaded from the store.", timeout=2)
