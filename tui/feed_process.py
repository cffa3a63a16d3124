"""The reader's refresh of the feeds, in a process of its own.

Fetching, parsing, storing and placing a refresh's entries is Python work: in a thread of
the reader it would hold the interpreter's lock against the event loop, and every key
would wait its turn. In a child process, at a lower priority, the reader's thread only
waits on a queue and the refresh takes the cores the reader leaves. The child opens the
store itself; each feed is one short transaction there, as in ``topiclens refresh``.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import queue
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from topiclens.feeds.refresh import RefreshProgress, RefreshSummary


BACKGROUND_NICENESS = 19
# At most this many seconds apart, a refresh's progress reaches the reader: each redraw of
# the stage and bar takes the event loop some milliseconds a key would wait for, and a
# refresh of many feeds finishes several a second.
PROGRESS_EVERY = 0.25


class RefreshStopped(Exception):
    """The reader closed during a refresh: the child was stopped (SQLite rolls back the
    one feed it was storing; the feeds stored before it stay)."""


def _child(path: str, feed_ids: list[int] | None, out: Any) -> None:
    """The refresh itself, in the child: every message to ``out`` is (kind, value)."""
    try:
        # background work yields the cores to the reader (its parse and tokenizer
        # processes inherit this), so keys answer first on a busy machine
        os.nice(BACKGROUND_NICENESS)
        from topiclens.feeds.refresh import refresh
        from topiclens.store import Store

        with Store(path) as store:
            summary = refresh(store, feed_ids, progress=lambda step: out.put(("progress", step)))
        out.put(("done", summary))
    except BaseException as exc:  # said to the reader as one line, never a traceback
        out.put(("error", f"{type(exc).__name__}: {exc}"))


def refresh_in_process(
    path: Path,
    feed_ids: Sequence[int] | None,
    *,
    progress: Callable[[RefreshProgress], None],
    cancelled: Callable[[], bool],
    every: float = PROGRESS_EVERY,
) -> RefreshSummary:
    """Refresh the feeds of the store at ``path`` (those of ``feed_ids``) in a child
    process, calling ``progress`` as feeds finish: at most once per ``every`` seconds,
    and always for the last feed and for the placing. RuntimeError with the child's
    error; :class:`RefreshStopped` once ``cancelled()``."""
    context = multiprocessing.get_context("spawn")  # never fork a threaded process
    out = context.Queue()
    ids = list(feed_ids) if feed_ids is not None else None
    child = context.Process(target=_child, args=(str(path), ids, out), name="topiclens-refresh")
    child.start()
    shown = -math.inf  # when progress was last called
    try:
        while True:
            try:
                kind, value = out.get(timeout=0.1)
            except queue.Empty:
                if cancelled():
                    child.terminate()
                    raise RefreshStopped from None
                if child.is_alive():
                    continue
                try:  # it ended: its last words may still be in the pipe
                    kind, value = out.get(timeout=1.0)
                except queue.Empty:
                    raise RuntimeError(
                        f"the refresh stopped without a word (exit status {child.exitcode})"
                    ) from None
            if kind == "progress":
                now = time.monotonic()
                if now - shown >= every or value.placing or value.done >= value.total:
                    shown = now
                    progress(value)
            elif kind == "done":
                return value  # type: ignore[no-any-return]
            else:
                raise RuntimeError(value)
    finally:
        child.join(timeout=10)
        if child.is_alive():
            child.terminate()
            child.join()
        out.close()
