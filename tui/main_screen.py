"""The reader's main screen: it owns the state and hands it to the three panes."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.reactive import var
from textual.screen import Screen
from textual.widget import Widget
from textual.worker import Worker, WorkerState, get_current_worker
from topiclens.store import Store, Topic

from .commands import MAIN, bindings
from .display import literal, markup_literal, terminal_line
from .model import Detail, Row, View
from .widgets import DetailPane, EntryList, KeyFooter, SimilarList, TopicList, topic_items

# What the clustering's progress stages mean to someone waiting for their topics.
STAGES = {
    "import": "Importing the bundled corpus",
    "tokenize": "Reading the entries (Chinese and English words)",
    "features": "Weighing the words (TF-IDF)",
    "neighbours": "Finding each entry's nearest entries",
    "kmeans": "Grouping the entries into topics",
    "name": "Naming the topics",
    "similar": "Finding similar entries",
    "assign": "Placing new entries in their topics",
    "store": "Saving the topics",
    "done": "Done",
}


class PrepareCancelled(Exception):
    """Raised inside the clustering's progress callback once the app is closing: the
    worker stops (its process pool with it) instead of writing to a store being closed."""


# rows of visited topics kept in memory, least recently shown dropped first: 150,000
# rows (every topic of a 100,000-entry store) take about 40 MB, and going back to a
# topic then costs no query
ROWS_CACHED = 150_000


def _settle_gc() -> None:
    """Move what start-up built (modules, classes, the widgets) out of the cyclic garbage
    collector's way. Textual and the store leave ~100,000 long-lived objects, and each full
    collection walked them all: at 100,000 entries one in ten topic switches paused
    ~40 ms for it (bench/bench_reader.py: p95 80 -> 56 ms). Objects made later are
    collected as usual; reference counting frees the frozen ones as it always does."""
    import gc

    gc.freeze()


class MainScreen(Screen[None]):
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
        self._rows_cache: OrderedDict[View, list[Row]] = OrderedDict()
        self._reader: Store | None = None
        self._reader_lock = threading.Lock()
        self._generation = 0  # moves on every reload: late background rows are dropped
        self.preparing = False
        self._version = 0
        self._stage: Any = None
        self._bar: Any = None
        self._progress_box: Any = None

    # --- layout ----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # no containers: the topics dock on the left and the right-hand panes stack in
        # the screen's own vertical layout (two fewer widgets to style, lay out and
        # composite on every frame)
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
        self._fit(self.app.size.width, self.app.size.height)  # before the first layout
        self._version = self.store.external_changes()
        self.reload()  # the first frame shows the first entry in full (_rows_ready)
        if self.cluster and not self.topics:
            empty = not self.store.count_entries()
            self._progress("Importing the bundled corpus" if empty else "Grouping entries", 0)
            self.preparing = True
            self.call_after_refresh(self._start_preparing)  # the first frame comes first
        self.set_interval(self.poll_interval, self.poll_store)

    def first_frame_shown(self) -> None:
        """What waits for the first frame (the app calls this on Textual's Ready): the
        scan for entries that still need a topic, which on a big store would compete
        with drawing it, and settling the garbage collector."""
        _settle_gc()
        if self.cluster and self.topics and not self.preparing:
            self._check_new_entries()

    def on_resize(self) -> None:
        self._fit(self.size.width, self.size.height)

    def _fit(self, width: int, height: int) -> None:
        # at 80 columns every footer key fits only without the palette hint (ctrl+p still works)
        self.query_one(KeyFooter).show_command_palette = width >= 100
        self.set_class(height < 30, "-short")

    # --- loading ---------------------------------------------------------------------

    def reload(self) -> None:
        """Read topics, bookmarks and read state again and show the current view."""
        store = self.store
        self._rows_cache.clear()
        self._generation += 1
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
        if view is None and self.topics:
            view = View("topic", self.topics[0].id)
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

    @property
    def reader(self) -> Store:
        """A second connection for the workers' long reads, so that a query of thousands of
        rows never holds the lock the event loop's short reads and writes wait on (WAL lets
        both read at once)."""
        with self._reader_lock:
            if self._reader is None:
                self._reader = Store(self.store.path)
            return self._reader

    def on_unmount(self) -> None:
        if self._reader is not None:
            self._reader.close()

    def fetch_rows(self, view: View, store: Store | None = None) -> list[Row]:
        """The rows of a view, straight from the store."""
        store = store or self.store
        if view.kind == "topic" and view.topic_id is not None:
            raw = store.topic_rows(view.topic_id)
        elif view.kind == "bookmarks":
            raw = store.entry_rows([b.entry_id for b in reversed(store.bookmarks())])
        else:
            raw = store.entry_rows(store.search(view.query))
        return raw

    def show_view(self, view: View, keep: str | None = None, *, wait: bool = False) -> None:
        """Show ``view`` in the entry list: at once when ``wait`` or when its rows are
        cached, else from a worker."""
        self.view = view
        cached = self._rows_cache.get(view)
        if cached is not None:
            self._rows_cache.move_to_end(view)
            self._rows_ready(view, cached, keep)
        elif wait:
            self._rows_ready(view, self._remember(view, self.fetch_rows(view)), keep)
        else:
            self._load_rows(view, keep)

    def _remember(self, view: View, rows: list[Row]) -> list[Row]:
        """Keep the rows of the last few topics: going back to one costs nothing."""
        if view.kind == "topic":
            cache = self._rows_cache
            cache[view] = rows
            cache.move_to_end(view)
            total = sum(map(len, cache.values()))
            while total > ROWS_CACHED and len(cache) > 1:
                total -= len(cache.popitem(last=False)[1])
        return rows

    @work(thread=True, exclusive=True, group="rows", exit_on_error=False)
    def _load_rows(self, view: View, keep: str | None) -> None:
        generation = self._generation
        rows = self.fetch_rows(view, self.reader)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._loaded, generation, view, rows, keep)

    def _loaded(self, generation: int, view: View, rows: list[Row], keep: str | None) -> None:
        if generation == self._generation:
            self._rows_ready(view, self._remember(view, rows), keep)

    def _prefetch_neighbours(self, view: View) -> None:
        """Load the topics above and below the current one in the background: moving
        through the topic list with j/k then finds their rows ready."""
        ids = [t.id for t in self.topics]
        if view.kind != "topic" or view.topic_id not in ids:
            return
        i = ids.index(view.topic_id)
        wanted = [View("topic", ids[j]) for j in (i + 1, i - 1) if 0 <= j < len(ids)]
        wanted = [v for v in wanted if v not in self._rows_cache]
        if wanted:
            self._prefetch(wanted)

    @work(thread=True, exclusive=True, group="prefetch", exit_on_error=False)
    def _prefetch(self, views: list[View]) -> None:
        generation = self._generation
        for view in views:
            rows = self.fetch_rows(view, self.reader)
            if get_current_worker().is_cancelled:
                return
            self.app.call_from_thread(self._prefetched, generation, view, rows)

    def _prefetched(self, generation: int, view: View, rows: list[Row]) -> None:
        if generation == self._generation:
            self._remember(view, rows)

    def _rows_ready(self, view: View, rows: list[Row], keep: str | None) -> None:
        if view != self.view:
            return
        if view.kind == "search" and self._search_count != len(rows):
            self._search_count = len(rows)
            self.show_topics(view)
        if self.unread_only:
            rows = [r for r in rows if r[0] not in self.read or r[0] == keep]
        entries = self.entry_list
        entries.empty_text = {
            "topic": "No unread entries in this topic." if self.unread_only else "Empty topic.",
            "bookmarks": "No bookmarks: press b on an entry.",
            "search": "Nothing matches.",
        }[view.kind]
        entries.border_title = literal(self._view_title(view, len(rows)))
        entries.border_subtitle = "unread only (u shows all)" if self.unread_only else ""
        entries.show_rows(rows, keep)
        # the entry under the cursor is loaded here, in the same turn of the event loop as
        # the rows, not on the list's Highlighted message: the rows and their first entry
        # then reach the terminal in one frame, not two
        current = entries.current_id
        if current is None:
            self.detail = None
        elif self.detail is None or self.detail.entry.id != current:
            self.load_detail(current)
        self._prefetch_neighbours(view)

    def _view_title(self, view: View, n: int) -> str:
        if view.kind == "bookmarks":
            return f"Bookmarks · {n}"
        if view.kind == "search":
            return f"Search “{view.query}” · {n}"
        topic = next((t for t in self.topics if t.id == view.topic_id), None)
        return f"{topic.name if topic else 'Topic'} · {n}"

    def load_detail(self, entry_id: str | None) -> None:
        if entry_id is None:
            self.detail = None
            return
        store = self.store
        entry = store.entry(entry_id)
        if entry is None:
            self.detail = None
            return
        topic, score, terms = None, 0.0, []
        assignment = store.assignment(entry_id)
        if assignment is not None:
            topic_id, score, terms = assignment
            topic = next((t for t in self.topics if t.id == topic_id), None)
        similar = store.similar(entry_id)
        rows = {r[0]: r for r in store.entry_rows([s for s, _ in similar])}
        self.detail = Detail(
            entry=entry,
            topic=topic,
            score=score,
            terms=list(terms),
            similar=[(rows[s], score) for s, score in similar if s in rows],
            bookmark=store.bookmark(entry_id),
            read=entry_id in self.read,
        )

    # --- first start -----------------------------------------------------------------

    @work(thread=True, exclusive=True, group="prepare", exit_on_error=False)
    def prepare(self) -> None:
        """Import the bundled corpus if the store is empty, then group entries into topics."""

        worker = get_current_worker()

        def progress(stage: str, fraction: float) -> None:
            if worker.is_cancelled:  # the app is closing: stop at the next stage, quietly
                raise PrepareCancelled
            self.app.call_from_thread(self._progress, stage, fraction)

        from topiclens.store.importer import ensure_corpus

        ensure_corpus(self.store)
        progress("Grouping entries into topics", 0.02)
        from topiclens.clustering import ensure_topics

        ensure_topics(self.store, progress=progress)

    @work(thread=True, group="check", exit_on_error=False)
    def _check_new_entries(self) -> None:
        """Entries imported since the last grouping are grouped now, in the background
        (counting them takes a scan, so not before the first frame)."""
        if self.reader.count_unassigned():
            self.app.call_from_thread(self._group_new_entries)

    def _group_new_entries(self) -> None:
        self._progress("Grouping new entries", 0)
        self._start_preparing()

    def _start_preparing(self) -> None:
        self.preparing = True
        # The clustering may tokenize in worker processes. multiprocessing's resource
        # tracker hands its child our stderr; inside the app that is Textual's redirector,
        # whose fileno() is -1, and the spawn fails ("bad value(s) in fds_to_keep"). Start
        # the tracker here, on the app's thread, with the real stderr for that instant.
        import sys
        from contextlib import redirect_stderr
        from multiprocessing import resource_tracker

        with redirect_stderr(sys.__stderr__):
            resource_tracker.ensure_running()
        self.prepare()

    def _progress(self, stage: str, fraction: float) -> None:
        """Show the stage and how far it got (mounted on the first call: later starts,
        which never prepare, do not pay for a progress bar)."""
        from textual.widgets import Label, ProgressBar

        if self._bar is None:
            self._stage = Label(id="progress-stage")
            self._bar = ProgressBar(total=100, show_eta=False, id="progress-bar")
            self._progress_box = Vertical(self._stage, self._bar, id="progress")
            self.mount(self._progress_box, before=0)
        self._progress_box.display = True
        self.add_class("-progress")
        stage = STAGES.get(stage, stage)
        self._stage.update(literal(stage))
        if fraction > 0:
            self._bar.update(total=100, progress=round(fraction * 100))
        else:  # a stage that has not measured its progress yet: a pulsing bar, not "0%"
            self._bar.update(total=None)
        if not self.topics:
            self.entry_list.empty_text = f"{stage}…"

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group == "prepare" and worker.state in (
            WorkerState.SUCCESS,
            WorkerState.ERROR,
            WorkerState.CANCELLED,
        ):
            self.preparing = False
            for progress in self.query("#progress"):
                progress.display = False
            self.remove_class("-progress")
            _settle_gc()  # the clustering's modules stay loaded: out of the collector's way
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

    # --- another process ---------------------------------------------------------------

    def poll_store(self) -> None:
        """Reload when another process committed to the store (a cheap PRAGMA read)."""
        if self.preparing:
            return
        version = self.store.external_changes()
        if version != self._version:
            self._version = version
            self.reload()
            self.load_detail(self.entry_list.current_id)
            self.notify("The store changed elsewhere: topics and entries reloaded.")

    # --- messages from the panes -------------------------------------------------------

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
            self._set_read(event.entry_id, True)
        self.detail_pane.focus()

    @on(SimilarList.Jump)
    def _jump(self, event: SimilarList.Jump) -> None:
        self.jump_to_entry(event.entry_id)

    def jump_to_entry(self, entry_id: str) -> None:
        entries = self.entry_list
        index = next((i for i, r in enumerate(entries.rows) if r[0] == entry_id), None)
        if index is not None:
            entries.cursor = index
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

    # --- actions -------------------------------------------------------------------------

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
        self.entry_list.cursor += step

    def _current(self) -> str | None:
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
        self.notify("Bookmarked." if on_now else "Bookmark removed.", timeout=2)

    def _bookmarks_changed(self, entry_id: str) -> None:
        self.bookmarks = frozenset(self.store.bookmark_ids())
        self.show_topics(self.view)
        self.load_detail(entry_id)

    def action_edit_note(self) -> None:
        entry_id = self._need_entry()
        if entry_id is None or self.detail is None:
            return
        from .screens import NoteScreen

        bookmark = self.detail.bookmark
        note = bookmark.note if bookmark is not None else ""

        def save(text: str | None) -> None:
            if text is None:
                return
            self.store.set_note(entry_id, text)
            self._bookmarks_changed(entry_id)
            self.notify("Note saved." if text else "Note cleared.", timeout=2)

        self.app.push_screen(NoteScreen(self.detail.entry.title, note), save)

    def action_show_bookmarks(self) -> None:
        if not self.bookmarks:
            self.notify("No bookmarks yet: press b on an entry.", severity="warning")
            return
        view = View("bookmarks")
        self.topic_list.select_view(view)
        self.show_view(view, wait=True)
        self.entry_list.focus()

    def action_search(self) -> None:
        from .screens import SearchScreen

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
        self.search_query = query
        self._search_count = 0
        self.view = view
        self.show_topics(view)
        self.entry_list.empty_text = "Searching…"
        self.entry_list.show_rows([])
        self.show_view(view)  # in a worker: a search reads every entry
        self.entry_list.focus()

    def action_overview(self) -> None:
        from .screens import OverviewScreen

        def chosen(topic_id: int | None) -> None:
            if topic_id is not None:
                self.jump_to_topic(topic_id)

        self.app.push_screen(OverviewScreen(self.store, self.topics), chosen)

    def action_toggle_read(self) -> None:
        entry_id = self._need_entry()
        if entry_id is not None:
            self._set_read(entry_id, entry_id not in self.read)

    def _set_read(self, entry_id: str, read: bool) -> None:
        self.store.set_read(entry_id, read)
        self.read = self.read | {entry_id} if read else self.read - {entry_id}
        if self.detail is not None and self.detail.topic is not None:
            tid = self.detail.topic.id
            self.unread[tid] = max(0, self.unread.get(tid, 0) + (-1 if read else 1))
            self.show_topics(self.view)
        self.load_detail(entry_id)

    def action_unread_only(self) -> None:
        self.unread_only = not self.unread_only
        if self.view is not None:
            self.show_view(self.view, keep=self.entry_list.current_id, wait=True)
        self.notify("Unread entries only." if self.unread_only else "All entries.", timeout=2)

    def action_export(self) -> None:
        from .screens import ExportScreen

        if not self.bookmarks:
            self.notify("No bookmarks to export: press b on an entry first.", severity="warning")
            return
        self.app.push_screen(ExportScreen(self.store))

    def action_refresh(self) -> None:
        self._version = self.store.external_changes()
        self.reload()
        self.load_detail(self.entry_list.current_id)
        self.notify("Reloaded from the store.", timeout=2)

    def palette_commands(self) -> list[tuple[str, str, Any]]:
        """(title, help, callback) for the command palette: each topic to jump to."""
        return [
            (
                markup_literal(f"Jump to topic: {t.name}"),
                f"{t.size} entries",
                lambda t=t: self.jump_to_topic(t.id),
            )
            for t in self.topics
        ]
