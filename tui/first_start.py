"""A first start's work, off the event loop: the bundled corpus imported when the store is
empty, then the entries grouped into topics. The main screen runs it in a thread worker
and shows its progress."""

from __future__ import annotations

from collections.abc import Callable

from topiclens.store import Store


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
