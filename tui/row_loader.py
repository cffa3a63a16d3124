"""Rows for the entry list: from memory, from the store at once, or from a thread worker
on a second connection, with the topics next to the one shown read ahead."""

from __future__ import annotations

import threading
from collections.abc import Callable

from textual.dom import DOMNode
from textual.worker import get_current_worker
from topiclens.store import Store

from .model import Rows, View
from .views import RowCache, fetch_rows
from .workers import READ_AHEAD, ROWS

Deliver = Callable[[View, Rows, str | None], None]


class RowLoader:
    """Loads a view's rows and hands them to ``deliver(view, rows, keep)`` on the event loop.

    Long reads run in thread workers (the newest request wins, so fast key repeats never
    queue up store reads) on their own connection, so a query of thousands of rows never
    holds the lock the event loop's short reads and writes wait on (WAL lets both read)."""

    def __init__(self, owner: DOMNode, store: Store, deliver: Deliver) -> None:
        self.owner = owner
        self.store = store
        self.deliver = deliver
        self.cache = RowCache()
        self._generation = 0  # moves on every reload: late background rows are dropped
        self._worker_store: Store | None = None
        self._lock = threading.Lock()
        # a store file replaced under the reader: this connection closes before the new
        # file is opened (left open, it would go on reading the old one); the next read
        # opens the new one
        store.before_reopen(self.close)

    @property
    def worker_store(self) -> Store:
        """The workers' own connection, opened on first use."""
        with self._lock:
            if self._worker_store is None:
                self._worker_store = Store(self.store.path)
            return self._worker_store

    def close(self) -> None:
        """Close the workers' connection (a later read opens one again)."""
        with self._lock:
            old, self._worker_store = self._worker_store, None
        if old is not None:
            old.close()

    def forget(self) -> None:
        """The store changed: drop every kept row, and rows still being read."""
        self.cache.clear()
        self._generation += 1

    def load(self, view: View, keep: str | None, *, wait: bool) -> None:
        """Deliver ``view``'s rows: at once when cached or when ``wait``, else from a worker."""
        cached = self.cache.get(view)
        if cached is not None:
            self.deliver(view, cached, keep)
        elif wait:
            self.deliver(view, self.cache.put(view, fetch_rows(self.store, view)), keep)
        else:
            generation = self._generation

            def read() -> None:
                rows = fetch_rows(self.worker_store, view)
                if not get_current_worker().is_cancelled:
                    self.owner.app.call_from_thread(self._loaded, generation, view, rows, keep)

            self._run(read, ROWS)

    def _loaded(self, generation: int, view: View, rows: Rows, keep: str | None) -> None:
        if generation == self._generation:
            self.deliver(view, self.cache.put(view, rows), keep)

    def read_ahead(self, view: View, topic_ids: list[int]) -> None:
        """Read the topics above and below ``view`` in the background: moving through the
        topic list with j/k then finds their rows ready."""
        if view.kind != "topic" or view.topic_id not in topic_ids:
            return
        i = topic_ids.index(view.topic_id)
        wanted = [View("topic", topic_ids[j]) for j in (i + 1, i - 1) if 0 <= j < len(topic_ids)]
        wanted = [v for v in wanted if v not in self.cache]
        if not wanted:
            return
        generation = self._generation

        def read() -> None:
            for v in wanted:
                rows = fetch_rows(self.worker_store, v)
                if get_current_worker().is_cancelled:
                    return
                self.owner.app.call_from_thread(self._read_ahead_done, generation, v, rows)

        self._run(read, READ_AHEAD)

    def _read_ahead_done(self, generation: int, view: View, rows: Rows) -> None:
        if generation == self._generation:
            self.cache.put(view, rows)

    def _run(self, work: Callable[[], None], group: str) -> None:
        self.owner.run_worker(work, thread=True, exclusive=True, group=group, exit_on_error=False)
