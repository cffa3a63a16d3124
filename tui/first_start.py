"""A first start: the bundled corpus imported and grouped into topics, off the event loop."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.worker import get_current_worker
from topiclens.store import Store

if TYPE_CHECKING:
    from .main_screen import MainScreen
    from .progress import ProgressBox

GROUP = "prepare"  # the grouping worker's group: the screen watches its end


class PrepareCancelled(Exception):
    """Raised inside the clustering's progress callback once the app is closing: the
    worker stops (its process pool with it) instead of writing to a store being closed."""


def start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker on the app's thread, with the real stderr.

    The clustering may tokenize in worker processes. The tracker hands its child our
    stderr; inside the app that is Textual's redirector, whose fileno() is -1, and the
    spawn fails ("bad value(s) in fds_to_keep")."""
    import sys
    from contextlib import redirect_stderr
    from multiprocessing import resource_tracker

    with redirect_stderr(sys.__stderr__):
        resource_tracker.ensure_running()


def prepare_store(
    store: Store, progress: Callable[[str, float], None], cancelled: Callable[[], bool]
) -> None:
    """Import the bundled corpus if the store is empty, then group entries into topics,
    reporting each stage to ``progress``; stops at the next report once ``cancelled()``."""

    def report(stage: str, fraction: float) -> None:
        if cancelled():
            raise PrepareCancelled
        progress(stage, fraction)

    from topiclens.store.importer import ensure_corpus

    ensure_corpus(store)
    report("Grouping entries into topics", 0.02)
    from topiclens.clustering import ensure_topics

    ensure_topics(store, progress=report)


class FirstStart:
    """The main screen's first start: the progress box, the grouping worker, and the
    check for entries imported since the last grouping. The screen stays the owner of
    the state; this drives the work and tells it when the topics are ready."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self._box: ProgressBox | None = None

    def show(self, stage: str, fraction: float) -> None:
        """Show the stage and how far it got (mounted on the first call: later starts,
        which never group, do not pay for a progress bar)."""
        screen = self.screen
        if self._box is None:
            from .progress import ProgressBox

            self._box = ProgressBox(id="progress")
            screen.mount(self._box, before=0)
        screen.add_class("-progress")
        text = self._box.show(stage, fraction)
        if not screen.topics:
            screen.entry_list.empty_text = f"{text}…"

    def start(self) -> None:
        """Group the entries in a thread worker (the import of the bundled corpus first,
        when the store is empty)."""
        screen = self.screen
        screen.preparing = True
        start_resource_tracker()

        def prepare() -> None:
            worker = get_current_worker()

            def progress(stage: str, fraction: float) -> None:
                screen.app.call_from_thread(self.show, stage, fraction)

            prepare_store(screen.store, progress, lambda: worker.is_cancelled)

        screen.run_worker(prepare, thread=True, exclusive=True, group=GROUP, exit_on_error=False)

    def check_new_entries(self, store: Store) -> None:
        """Entries imported since the last grouping are grouped now, in the background
        (counting them takes a scan, so not before the first frame)."""

        def check() -> None:
            if store.count_unassigned():
                self.screen.app.call_from_thread(self._group_new_entries)

        self.screen.run_worker(check, thread=True, group="check", exit_on_error=False)

    def _group_new_entries(self) -> None:
        self.show("Grouping new entries", 0)
        self.screen.start_preparing()

    def finished(self) -> None:
        """The worker ended (done, failed or cancelled): the progress box goes."""
        self.screen.preparing = False
        if self._box is not None:
            self._box.display = False
        self.screen.remove_class("-progress")
